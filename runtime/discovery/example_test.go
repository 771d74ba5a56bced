package discovery_test

import (
	"fmt"

	"github.com/toolcat/toolcat/runtime/discovery"
)

func ExampleIndex_Search() {
	idx := discovery.New([]discovery.Doc{
		{Name: "delete_file", Description: "Delete a file from the workspace.",
			Args: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "read_file", Description: "Read the contents of a file."},
		{Name: "get_weather", Description: "Current weather for a city.",
			Queries: []string{"do I need an umbrella today"}},
	})
	for _, h := range idx.Search("remove the file notes.txt", 5) {
		fmt.Println(h.Name)
	}
	fmt.Println(idx.Search("will I need an umbrella?", 1)[0].Name)
	fmt.Println(discovery.Terms("getUserProfile via https://example.com"))
	// Output:
	// delete_file
	// read_file
	// get_weather
	// [get user profile url]
}

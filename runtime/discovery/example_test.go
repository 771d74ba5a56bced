package discovery_test

import (
	"context"
	"fmt"
	"strings"

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

// letterEmbedder is a stand-in for a model: a text's vector counts its
// letters. A host would use an OpenAIEmbedder instead.
type letterEmbedder struct{}

func (letterEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 26)
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[r-'a']++
			}
		}
		out[i] = v
	}
	return out, nil
}

func ExampleNewHybrid() {
	ctx := context.Background()
	docs := []discovery.Doc{
		{Name: "delete_file", Description: "Delete a file from the workspace."},
		{Name: "get_weather", Description: "Current weather for a city."},
	}
	// With a real model: &discovery.OpenAIEmbedder{BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"}.
	h, err := discovery.NewHybrid(ctx, docs, discovery.HybridOptions{Embedder: letterEmbedder{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hits, err := h.Search(ctx, "remove the file notes.txt", 1)
	if err != nil {
		fmt.Println(err) // the lexical hits are still there
	}
	fmt.Println(hits[0].Name)
	// Output:
	// delete_file
}

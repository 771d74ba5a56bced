package jsonscan_test

import (
	"fmt"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

func ExampleDecoder() {
	var d jsonscan.Decoder
	d.Reset([]byte(`{"query": "pgvector", "max_results": 3, "tags": ["db"]}`))
	if err := d.BeginObject(); err != nil {
		panic(err)
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			panic(err)
		}
		if !ok {
			break
		}
		switch string(key) {
		case "query":
			s, _ := d.String()
			fmt.Println("query:", s)
		case "max_results":
			n, _ := d.Int64()
			fmt.Println("max_results:", n)
		default:
			raw, _ := d.Raw()
			fmt.Printf("%s: %s (kept raw)\n", key, raw)
		}
	}
	fmt.Println("end:", d.End())

	d.Reset([]byte(`{"max_results": "3"}`))
	_ = d.BeginObject()
	_, _, _ = d.NextKey()
	_, err := d.Int64()
	fmt.Println(err)
	// Output:
	// query: pgvector
	// max_results: 3
	// tags: ["db"] (kept raw)
	// end: <nil>
	// got string, want number at offset 16
}

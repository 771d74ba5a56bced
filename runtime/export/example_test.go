package export_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

var getInvoice = runtime.Meta{
	Name:        "get_invoice",
	Description: "Reads one invoice by its number.",
	Risk:        runtime.RiskLow,
	Idempotent:  true,
	Exposure:    runtime.ExposureCore,
	ArgsSchema:  json.RawMessage(`{"type":"object","additionalProperties":false,"required":["number"],"properties":{"number":{"type":"string","description":"Invoice number."}}}`),
}

func ExampleOpenAIChat() {
	b, err := export.OpenAIChat([]runtime.Meta{getInvoice})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(b)
	// Output:
	// [
	//   {
	//     "type": "function",
	//     "function": {
	//       "name": "get_invoice",
	//       "description": "Reads one invoice by its number.",
	//       "parameters": {
	//         "type": "object",
	//         "additionalProperties": false,
	//         "required": [
	//           "number"
	//         ],
	//         "properties": {
	//           "number": {
	//             "type": "string",
	//             "description": "Invoice number."
	//           }
	//         }
	//       },
	//       "strict": true
	//     }
	//   }
	// ]
}

func ExampleGeminiSchema() {
	b, err := export.GeminiSchema([]byte(`{"type":["string","null"],"format":"uri","maxLength":200}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))
	// Output:
	// {"type":"STRING","nullable":true,"description":"Format: uri.","maxLength":200}
}

func ExampleAnnotationsOf() {
	publish := runtime.Meta{Name: "publish_article", HasSideEffects: true, Revertible: true, Risk: runtime.RiskMedium}
	fmt.Printf("%+v\n", export.AnnotationsOf(&publish))
	// Output:
	// {ReadOnlyHint:false DestructiveHint:false IdempotentHint:false OpenWorldHint:false}
}

func ExampleDeferHidden() {
	refund := runtime.Meta{
		Name:        "refund_order",
		Description: "Refunds an order.",
		Exposure:    runtime.ExposureHidden,
		ArgsSchema:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`),
	}
	// A session renders its definitions with the same Format:
	// sess.Definitions(export.Format(export.Anthropic, export.DeferHidden())).
	format := export.Format(export.Anthropic, export.DeferHidden())
	b, err := format([]runtime.Meta{getInvoice, refund})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(b)
	// Output:
	// [
	//   {
	//     "name": "get_invoice",
	//     "description": "Reads one invoice by its number.",
	//     "input_schema": {
	//       "type": "object",
	//       "additionalProperties": false,
	//       "required": [
	//         "number"
	//       ],
	//       "properties": {
	//         "number": {
	//           "type": "string",
	//           "description": "Invoice number."
	//         }
	//       }
	//     }
	//   },
	//   {
	//     "name": "refund_order",
	//     "description": "Refunds an order.",
	//     "input_schema": {
	//       "type": "object",
	//       "properties": {
	//         "order_id": {
	//           "type": "string"
	//         }
	//       }
	//     },
	//     "defer_loading": true
	//   },
	//   {
	//     "type": "tool_search_tool_bm25_20251119",
	//     "name": "tool_search_tool_bm25"
	//   }
	// ]
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime/telemetry/otlpenv/otlptest"
)

// TestTracePrinted checks that --trace prints the conversation's spans as
// a tree after it: the conversation, and under it the model's calls with
// their ids and outcomes, the replay, the approval's wait and the approved
// call.
func TestTracePrinted(t *testing.T) {
	spansInOrder(t, []string{"--trace"},
		"invoke_agent agent-host (",
		"\n  execute_tool get_ticket (", "gen_ai.tool.call.id=call_2\n",
		"execute_tool get_ticket (", "gen_ai.tool.call.id=call_4 error.type=invalid_args\n",
		"execute_tool create_ticket (", "gen_ai.tool.call.id=call_8 toolcat.replayed=true\n",
		"execute_tool notify_oncall_engineer (", "toolcat.dry_run=true\n",
		"error.type=approval_required toolcat.approval.id=call_", "[toolcat.approval.requested]\n",
		"  toolcat.approval notify_oncall_engineer (", "toolcat.approval.status=approved\n",
		"  execute_tool notify_oncall_engineer (",
	)
}

// TestTraceOff checks that without --trace and without an OTLP endpoint
// no span is printed.
func TestTraceOff(t *testing.T) {
	var out, errs bytes.Buffer
	if code := Main(nil, strings.NewReader(""), &out, &errs, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if strings.Contains(out.String(), "== spans") {
		t.Fatal("spans printed without --trace")
	}
}

// TestTraceOTLP checks that with OTEL_EXPORTER_OTLP_ENDPOINT set the
// spans reach an OTLP/HTTP receiver.
func TestTraceOTLP(t *testing.T) {
	rc := otlptest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	env := func(k string) string {
		if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			return rc.URL
		}
		return ""
	}
	var out, errs bytes.Buffer
	if code := Main(nil, strings.NewReader(""), &out, &errs, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if strings.Contains(out.String(), "== spans") {
		t.Fatal("spans printed without --trace")
	}
	if names := rc.SpanNames(t); names["invoke_agent agent-host"] != 1 || names["execute_tool get_ticket"] != 4 || names["toolcat.approval notify_oncall_engineer"] != 1 {
		t.Fatalf("spans received: %v", names)
	}
	calls := rc.HistogramCounts(t, "toolcat.tool.call.duration", "gen_ai.tool.name")
	if calls["get_ticket"] != 4 || calls["create_ticket"] == 0 {
		t.Fatalf("calls in the histogram received: %v", calls)
	}
}

// TestTraceCodeMode checks that in code mode the calls a program makes
// are printed under its execute_code span.
func TestTraceCodeMode(t *testing.T) {
	spansInOrder(t, []string{"--code-mode", "--token-figures=false", "--trace"},
		"invoke_agent agent-host (",
		"\n  execute_tool search_api (",
		"\n  execute_tool execute_code (", "error.type=approval_required",
		"\n    execute_tool get_ticket (",
		"\n  toolcat.approval notify_oncall_engineer (",
		"\n  execute_tool execute_code (",
		"\n    execute_tool get_ticket (", "toolcat.replayed=true\n",
	)
}

// spansInOrder runs the host with args and checks that the span tree it
// prints after the conversation holds each of wants, in that order.
func spansInOrder(t *testing.T, args []string, wants ...string) {
	t.Helper()
	var out, errs bytes.Buffer
	if code := Main(args, strings.NewReader(""), &out, &errs, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	_, tree, ok := strings.Cut(out.String(), "\n== spans (--trace)\n")
	if !ok {
		t.Fatalf("no spans printed:\n%s", out.String())
	}
	rest := tree
	for _, w := range wants {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the spans lack, at this point, %q:\n%s", w, tree)
		}
		rest = rest[i+len(w):]
	}
}

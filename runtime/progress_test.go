package runtime_test

import (
	"context"
	"math"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

func TestReportProgress(t *testing.T) {
	runtime.ReportProgress(context.Background(), 1, 2, "no reporter: nothing happens")

	type report struct {
		progress, total float64
		msg             string
	}
	var got []report
	ctx := runtime.WithProgressReporter(context.Background(), func(p, total float64, msg string) {
		got = append(got, report{p, total, msg})
	})
	runtime.ReportProgress(ctx, 1, 3, "one")
	runtime.ReportProgress(ctx, math.NaN(), 3, "not a number: dropped")
	runtime.ReportProgress(ctx, math.Inf(1), 3, "infinite: dropped")
	runtime.ReportProgress(ctx, 2, math.Inf(1), "total unknown")
	runtime.ReportProgress(ctx, 3, -1, "negative total: unknown")
	want := []report{{1, 3, "one"}, {2, 0, "total unknown"}, {3, 0, "negative total: unknown"}}
	if len(got) != len(want) {
		t.Fatalf("reports = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// A tool's progress reaches the reporter of the context its call runs in.
func TestReportProgressThroughCall(t *testing.T) {
	reg := runtime.New()
	err := reg.Register(runtime.Tool{Meta: runtime.Meta{Name: "count_up", Description: "Counts.", Risk: runtime.RiskLow,
		SLA: 1e9, ArgsSchema: []byte(`{"type":"object","properties":{}}`)},
		Execute: func(ctx context.Context, _ any) (any, error) {
			for i := 1; i <= 3; i++ {
				runtime.ReportProgress(ctx, float64(i), 3, "")
			}
			return map[string]int{"n": 3}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	ctx := runtime.WithProgressReporter(context.Background(), func(float64, float64, string) { n++ })
	if res := reg.Call(ctx, "count_up", []byte(`{}`), runtime.CallOptions{}); !res.Success || n != 3 {
		t.Errorf("call %s, %d reports; want success and 3", res.JSON(), n)
	}
}

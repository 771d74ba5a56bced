package telemetry_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyThisPackageLinksOpenTelemetry: runtime and the packages generated
// code imports do not depend on OpenTelemetry; importing runtime/telemetry
// does, and it links no exporter.
func TestOnlyThisPackageLinksOpenTelemetry(t *testing.T) {
	const otel = "go.opentelemetry.io/"
	deps := func(pkgs ...string) string {
		t.Helper()
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %v: %v\n%s", pkgs, err, out)
		}
		return string(out)
	}
	if out := deps("github.com/toolcat/toolcat/runtime", "github.com/toolcat/toolcat/runtime/export",
		"github.com/toolcat/toolcat/runtime/jsonscan"); strings.Contains(out, otel) {
		t.Errorf("runtime, runtime/export or runtime/jsonscan depends on OpenTelemetry")
	}
	out := deps("github.com/toolcat/toolcat/runtime/telemetry")
	if !strings.Contains(out, "go.opentelemetry.io/otel/trace\n") {
		t.Errorf("runtime/telemetry does not depend on go.opentelemetry.io/otel/trace")
	}
	if strings.Contains(out, "go.opentelemetry.io/otel/exporters/") || strings.Contains(out, "google.golang.org/grpc") {
		t.Errorf("runtime/telemetry links an exporter")
	}
}

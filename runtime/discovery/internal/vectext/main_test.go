package main

import (
	"bufio"
	"strings"
	"testing"
)

func lines(t *testing.T, path, text string) []string {
	t.Helper()
	var b strings.Builder
	w := bufio.NewWriter(&b)
	emit(w, prose(path, []byte(text)))
	w.Flush()
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func TestHTML(t *testing.T) {
	got := lines(t, "x/page.html", `<html><head><style>p { color: red }</style><script>var uploadFiles = 1;</script></head>
<body><h1>Uploading</h1><p>Upload the <b>photos</b> to your shared folder &amp; share them.</p>
<pre>curl -T photo.png https://example.com</pre><p>Deleted files stay in the trash for thirty days.</p></body></html>`)
	want := []string{"upload photo share folder share", "delet file stay trash thirti day"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRoff(t *testing.T) {
	got := lines(t, "man/man1/cp.1", `.TH CP 1
.SH NAME
cp \- copy files and directories
.SH DESCRIPTION
.PP
Copy \fISOURCE\fR to \fBDEST\fR, or multiple sources to a directory.
.nf
cp -r src dst
.fi
.TP
.B \-\-preserve
keep the mode and ownership of the copied files
`)
	want := []string{"cp copi file directori", "copi sourc dest multipl sourc directori", "preserv keep mode ownership copi file"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSkipName(t *testing.T) {
	for path, skip := range map[string]bool{
		"doc/copyright":         true,
		"doc/changelog.gz":      true,
		"doc/style.css":         true,
		"doc/all.html":          true,
		"doc/guide.txt":         false,
		"man/man1/ls.1.gz":      false,
		"help/C/files.page":     false,
		"doc/api/index.html":    false,
		"doc/figures/shot1.png": true,
	} {
		if got := skipName(path); got != skip {
			t.Errorf("skipName(%q) = %v, want %v", path, got, skip)
		}
	}
}

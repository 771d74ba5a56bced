package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/catalog"
)

// genOutput runs toolcat gen with args and returns what it printed.
func genOutput(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(append([]string{"gen"}, args...), nil, &out, &errb); code != 0 {
		t.Fatalf("toolcat gen %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// stampTest is a catalog, a module and an output directory in it, whose
// runs of gen the test follows.
type stampTest struct {
	t        *testing.T
	cat, out string
	split    string
	args     []string
}

func newStampTest(t *testing.T, split string) *stampTest {
	useGenCache(t, "test build")
	root := t.TempDir()
	s := &stampTest{t: t, cat: filepath.Join(root, "catalog"), out: filepath.Join(root, "tools"), split: split}
	if err := os.MkdirAll(s.cat, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(exampleCatalog, "tools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.write(filepath.Join(s.cat, "tools.yaml"), string(src))
	// A module that does not require toolcat: every run says so on
	// stderr.
	s.write(filepath.Join(root, "go.mod"), "module example.com/stamp\n\ngo 1.26\n")
	s.args = []string{"--split=" + split, "--out", s.out, s.cat}
	return s
}

func (s *stampTest) write(name, data string) {
	s.t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *stampTest) stampFile() string {
	s.t.Helper()
	st := openGenStamp(genFlags{out: s.out, cache: true, validators: "auto", split: s.split}, []string{s.cat})
	if st == nil {
		s.t.Fatal("no stamp for the test's runs")
	}
	return st.file
}

// stamp runs gen until a run changed nothing and kept its stamp, and
// plants a marker in the stamp's output, which only a run that uses the
// stamp prints.
func (s *stampTest) stamp() (marker string) {
	s.t.Helper()
	os.Remove(s.stampFile()) // a stamp left by the case before
	genOutput(s.t, s.args...)
	_, stderr := genOutput(s.t, s.args...) // changes nothing
	b, err := os.ReadFile(s.stampFile())
	if err != nil {
		s.t.Fatalf("a run that changed nothing kept no stamp: %v", err)
	}
	var r stampRecord
	if err := json.Unmarshal(b, &r); err != nil {
		s.t.Fatal(err)
	}
	if string(r.Stderr) != stderr || len(r.Stdout) != 0 {
		s.t.Fatalf("the stamp keeps stdout %q, stderr %q; the run printed stderr %q", r.Stdout, r.Stderr, stderr)
	}
	marker = "replayed from the stamp\n"
	r.Stdout = []byte(marker)
	if b, err = json.Marshal(r); err != nil {
		s.t.Fatal(err)
	}
	s.write(s.stampFile(), string(b))
	return marker
}

// A run of gen that changes nothing keeps a stamp, and the next run with
// the same inputs prints what that run printed and does nothing else.
func TestGenStampReplays(t *testing.T) {
	s := newStampTest(t, splitNone)
	genOutput(t, s.args...)
	if _, err := os.Stat(s.stampFile()); err == nil {
		t.Fatal("a run that wrote files kept a stamp")
	}
	_, stderr := genOutput(t, s.args...)
	if !strings.Contains(stderr, "does not require") {
		t.Fatalf("stderr %q lacks the module hint", stderr)
	}
	marker := s.stamp()
	stdout, stderr2 := genOutput(t, s.args...)
	if stdout != marker || stderr2 != stderr {
		t.Fatalf("a run with the inputs of the stamp printed %q, %q; want the stamp's %q, %q", stdout, stderr2, marker, stderr)
	}
	// --check and --cache=false never use it.
	for _, flag := range []string{"--check", "--cache=false"} {
		if stdout, _ := genOutput(t, append([]string{flag}, s.args...)...); strings.Contains(stdout, marker) {
			t.Errorf("gen %s used the stamp", flag)
		}
	}
}

// Any change to what a run reads makes the next run render, and keep a
// new stamp only when that run changed nothing.
func TestGenStampInputs(t *testing.T) {
	s := newStampTest(t, splitNone)
	gofile := filepath.Join(s.out, "publish_article_gen.go")
	impl := filepath.Join(s.out, "publish_article.go")
	for _, c := range []struct {
		name   string
		change func()
		args   []string
		check  func(stdout, stderr string)
	}{
		{name: "a generated file edited", change: func() {
			b, _ := os.ReadFile(gofile)
			s.write(gofile, string(b)+"// edited\n")
		}, check: func(stdout, _ string) {
			if b, _ := os.ReadFile(gofile); bytes.HasSuffix(b, []byte("// edited\n")) || !strings.Contains(stdout, "wrote "+gofile) {
				t.Errorf("the edited generated file was not written again: %q", stdout)
			}
		}},
		{name: "an implementation lost a method", change: func() {
			b, _ := os.ReadFile(impl)
			src := string(b)
			i := strings.Index(src, "\nfunc (")
			j := strings.LastIndex(src, "\nfunc (")
			if i < 0 || i == j {
				t.Fatalf("%s has fewer than two methods", impl)
			}
			s.write(impl, src[:j+1])
		}, check: func(stdout, _ string) {
			if !strings.Contains(stdout, "added ") {
				t.Errorf("the missing method was not added: %q", stdout)
			}
		}},
		{name: "a file added to the output directory", change: func() {
			s.write(filepath.Join(s.out, "notes.txt"), "x")
		}},
		{name: "a generated file removed", change: func() {
			os.Remove(gofile)
		}, check: func(stdout, _ string) {
			if !strings.Contains(stdout, "wrote "+gofile) {
				t.Errorf("the removed generated file was not written again: %q", stdout)
			}
		}},
		{name: "the catalog edited", change: func() {
			b, _ := os.ReadFile(filepath.Join(s.cat, "tools.yaml"))
			s.write(filepath.Join(s.cat, "tools.yaml"), strings.Replace(string(b), "returns the best matches first.", "returns the best matches first, at most 50.", 1))
		}, check: func(stdout, _ string) {
			if !strings.Contains(stdout, "wrote ") {
				t.Errorf("the edited catalog wrote nothing: %q", stdout)
			}
		}},
		{name: "a file added to the catalog directory", change: func() {
			s.write(filepath.Join(s.cat, "broken.yaml"), "tools: [")
		}},
		{name: "other flags", args: []string{"--validators=data"}, check: func(stdout, _ string) {
			if !strings.Contains(stdout, "wrote ") {
				t.Errorf("data validators wrote nothing: %q", stdout)
			}
		}},
		{name: "the go.mod changed", change: func() {
			s.write(filepath.Join(filepath.Dir(s.out), "go.mod"), "module example.com/stamp\n\ngo 1.26\n\nrequire github.com/toolcat/toolcat v0.0.0\n")
		}, check: func(_, stderr string) {
			if strings.Contains(stderr, "does not require") {
				t.Errorf("the module hint of the old go.mod was printed: %q", stderr)
			}
		}},
		{name: "another build of toolcat", change: func() {
			buildKey = func() string { return "another build" }
		}},
	} {
		marker := s.stamp()
		if c.change != nil {
			c.change()
		}
		var out, errb bytes.Buffer
		code := Main(append(append([]string{"gen"}, c.args...), s.args...), nil, &out, &errb)
		if strings.Contains(out.String(), marker) {
			t.Errorf("%s: the run used the stamp", c.name)
		}
		if c.name == "a file added to the catalog directory" {
			if code == 0 {
				t.Errorf("%s: a broken catalog file did not fail the run", c.name)
			}
			os.Remove(filepath.Join(s.cat, "broken.yaml"))
			continue
		}
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.name, code, out.String(), errb.String())
		}
		if c.check != nil {
			c.check(out.String(), errb.String())
		}
		if c.args != nil {
			genOutput(t, s.args...) // back to the flags of the others
		}
	}
}

// With --split=category the stamp covers the packages in the output
// directory's subdirectories.
func TestGenStampSplit(t *testing.T) {
	s := newStampTest(t, splitCategory)
	marker := s.stamp()
	files, err := filepath.Glob(filepath.Join(s.out, "*", "*_gen.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated file in a package of %s: %v", s.out, err)
	}
	b, _ := os.ReadFile(files[0])
	s.write(files[0], string(b)+"// edited\n")
	if stdout, _ := genOutput(t, s.args...); strings.Contains(stdout, marker) || !strings.Contains(stdout, "wrote "+files[0]) {
		t.Fatalf("a generated file of a package edited: gen printed %q", stdout)
	}
}

// keepStampsOfNewFiles lets a run that wrote files keep a stamp although
// the test's catalog was written just before it.
func keepStampsOfNewFiles(t *testing.T) {
	old := stampMinAge
	t.Cleanup(func() { stampMinAge = old })
	stampMinAge = 0
}

// A run that wrote files, printed no warning and read what is still there
// keeps a stamp for the next run, which then prints only the hint about
// go.mod; in one package and with --split=category.
func TestGenStampAfterWrites(t *testing.T) {
	for _, split := range []string{splitNone, splitCategory} {
		t.Run(split, func(t *testing.T) {
			s := newStampTest(t, split)
			keepStampsOfNewFiles(t)
			_, stderr := genOutput(t, s.args...)
			b, err := os.ReadFile(s.stampFile())
			if err != nil {
				t.Fatalf("a run that wrote files kept no stamp: %v", err)
			}
			var r stampRecord
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Stdout) != 0 || string(r.Stderr) != stderr || !strings.Contains(stderr, "does not require") {
				t.Fatalf("the stamp keeps stdout %q, stderr %q; the run printed stderr %q", r.Stdout, r.Stderr, stderr)
			}
			// What the next run does without the stamp: nothing, and
			// the same on stderr.
			os.Remove(s.stampFile())
			if stdout, stderr2 := genOutput(t, s.args...); stdout != "" || stderr2 != stderr {
				t.Fatalf("the run after it printed %q, %q; the stamp says %q, %q", stdout, stderr2, "", stderr)
			}
		})
	}
}

// A run that wrote files keeps no stamp when it printed a warning, or when
// a file it read changed after it began, or when the files it read are
// newer than stampMinAge.
func TestGenStampAfterWritesRefused(t *testing.T) {
	t.Run("warning", func(t *testing.T) {
		s := newStampTest(t, splitNone)
		keepStampsOfNewFiles(t)
		if err := os.MkdirAll(s.out, 0o755); err != nil {
			t.Fatal(err)
		}
		s.write(filepath.Join(s.out, "publish_article.go"), "package articles\n") // no var _ assertion
		if _, stderr := genOutput(t, s.args...); !strings.Contains(stderr, "left alone") {
			t.Fatalf("stderr %q lacks the warning", stderr)
		}
		if _, err := os.Stat(s.stampFile()); err == nil {
			t.Fatal("a run that warned kept a stamp")
		}
	})
	t.Run("new files", func(t *testing.T) {
		s := newStampTest(t, splitNone)
		stampMinAge = time.Hour
		t.Cleanup(func() { stampMinAge = 2 * time.Second })
		genOutput(t, s.args...)
		if _, err := os.Stat(s.stampFile()); err == nil {
			t.Fatal("a run that read files changed just before it kept a stamp")
		}
	})
	t.Run("a file changed during the run", func(t *testing.T) {
		s := newStampTest(t, splitNone)
		keepStampsOfNewFiles(t)
		genOutput(t, s.args...)
		impl := filepath.Join(s.out, "publish_article.go")
		b, _ := os.ReadFile(impl)
		src := string(b)
		i := strings.LastIndex(src, "\nfunc (")
		s.write(impl, src[:i+1]) // a method the next run adds again
		for _, edit := range []bool{false, true} {
			f := genFlags{out: s.out, cache: true, validators: "auto", split: splitNone}
			st := openGenStamp(f, []string{s.cat})
			cat, err := catalog.Load(s.cat)
			if err != nil {
				t.Fatal(err)
			}
			ss := &stagers{}
			plans, err := planAll(cat, f, ss)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range plans {
				if err := p.apply(); err != nil {
					t.Fatal(err)
				}
			}
			ss.discardAll()
			if edit {
				// The user edits a generated file after the run read it.
				gofile := filepath.Join(s.out, "get_article_by_id_gen.go")
				b, _ := os.ReadFile(gofile)
				s.write(gofile, string(b)+"// edited\n")
			}
			st.hint = st.stderr.String()
			st.done(plans)
			_, err = os.Stat(st.file)
			if kept := err == nil; kept == edit {
				t.Errorf("edited during the run %v: kept a stamp %v", edit, kept)
			}
			s.write(impl, src[:i+1])
		}
	})
}

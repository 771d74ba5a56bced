// Command vectext writes training text for word vectors: the prose of the
// documentation files under the directories it is given (man pages, info
// manuals, HTML, DocBook and Mallard pages, plain text), one paragraph a
// line, each word as the term discovery indexes it (discovery.Terms:
// lower-cased, split at camelCase, stop words dropped, stemmed), so that
// vectors trained on it are in the index's own vocabulary.
//
//	go run ./runtime/discovery/internal/vectext /usr/share/man/man1 /usr/share/info ... > text
//
// Files are read once each (the same content under two names counts once);
// compressed files (.gz) are read through gzip; binary files, images,
// scripts and style sheets are skipped. Code in HTML <pre>, <code> is
// skipped too: the text is for the meaning of words in prose.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/toolcat/toolcat/runtime/discovery"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: vectext dir... > text")
		os.Exit(2)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	seen := map[[32]byte]bool{}
	var files, words int
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skip
			}
			if !d.Type().IsRegular() || skipName(path) {
				return nil
			}
			text, err := readText(path)
			if err != nil || len(text) == 0 || bytes.IndexByte(text, 0) >= 0 {
				return nil
			}
			sum := sha256.Sum256(text)
			if seen[sum] {
				return nil
			}
			seen[sum] = true
			files++
			words += emit(out, prose(path, text))
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d files, %d terms\n", files, words)
}

var skipExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".ico": true,
	".js": true, ".css": true, ".py": true, ".pyc": true, ".so": true, ".woff": true,
	".woff2": true, ".ttf": true, ".pdf": true, ".ps": true, ".epub": true, ".zip": true,
	".json": true, ".inv": true, ".pickle": true, ".doctree": true, ".map": true,
}

func skipName(path string) bool {
	p := strings.TrimSuffix(path, ".gz")
	base := filepath.Base(p)
	if base == "copyright" || strings.HasPrefix(base, "changelog") {
		return true // licences and change logs: not prose about the subject
	}
	ext := strings.ToLower(filepath.Ext(p))
	if strings.HasPrefix(base, "all.") {
		return true // one page of every other page (Node.js's API docs)
	}
	if ext == ".html" || ext == ".htm" {
		// The same page as plain text or Markdown beside it: read that one.
		stem := strings.TrimSuffix(p, filepath.Ext(p))
		for _, alt := range []string{".txt", ".txt.gz", ".md", ".md.gz", ".rst"} {
			if _, err := os.Stat(stem + alt); err == nil {
				return true
			}
		}
	}
	return skipExt[ext]
}

// readText reads a file, through gzip when it ends in .gz, at most 16 MiB.
func readText(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		r = z
	}
	return io.ReadAll(io.LimitReader(r, 16<<20))
}

var (
	dropBlocks = regexp.MustCompile(`(?is)<(script|style|pre|code|programlisting|screen|synopsis|code:block)\b.*?</(script|style|pre|code|programlisting|screen|synopsis|code:block)>`)
	tags       = regexp.MustCompile(`(?s)<[^>]*>`)
	roffEsc    = regexp.MustCompile(`\\(\(..|\*\(..|\*\[[^]]*\]|\[[^]]*\]|f\(..|f\[[^]]*\]|f.|s[-+]?[0-9]+|[*n].|.)`)
	blankLines = regexp.MustCompile(`\n[ \t]*\n`)
)

// prose returns the running text of a file by its kind.
func prose(path string, text []byte) string {
	p := strings.TrimSuffix(path, ".gz")
	switch ext := strings.ToLower(filepath.Ext(p)); {
	case ext == ".html" || ext == ".htm" || ext == ".xhtml" || ext == ".xml" || ext == ".page" || ext == ".docbook":
		s := dropBlocks.ReplaceAllString(string(text), "\n\n")
		s = strings.NewReplacer("</p>", "\n\n", "</P>", "\n\n", "<br>", "\n", "</li>", "\n\n", "</td>", " ", "</h1>", "\n\n", "</h2>", "\n\n", "</h3>", "\n\n", "</dt>", "\n\n", "</dd>", "\n\n", "</title>", "\n\n").Replace(s)
		return html.UnescapeString(tags.ReplaceAllString(s, " "))
	case strings.Contains(p, "/man/man") || isRoff(text):
		return roff(string(text))
	default:
		return string(text)
	}
}

func isRoff(text []byte) bool {
	return bytes.HasPrefix(text, []byte(".TH ")) || bytes.HasPrefix(text, []byte(`.\"`)) || bytes.HasPrefix(text, []byte("'\\\""))
}

// roff keeps the text of a man page: the arguments of font and section
// macros, and text lines, without escapes; other requests are dropped.
func roff(s string) string {
	var b strings.Builder
	skip := false // inside .nf/.EX (examples) or .de (definitions)
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			f := strings.Fields(line[1:])
			if len(f) == 0 {
				b.WriteString("\n\n")
				continue
			}
			switch f[0] {
			case "nf", "EX", "de", "ig":
				skip = true
			case "fi", "EE", "..":
				skip = false
			case "SH", "SS", "B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB":
				if f[0] == "SH" || f[0] == "SS" {
					b.WriteString("\n\n") // a heading is a paragraph of its own
				}
				if !skip {
					b.WriteString(strings.ReplaceAll(strings.Join(f[1:], " "), `"`, ""))
					b.WriteByte(' ')
				}
				if f[0] == "SH" || f[0] == "SS" {
					b.WriteString("\n\n")
				}
			case "PP", "LP", "P", "TP", "IP", "HP", "sp", "br":
				b.WriteString("\n\n")
			}
			continue
		}
		if skip {
			continue
		}
		b.WriteString(roffEsc.ReplaceAllString(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// emit writes each paragraph of s as a line of terms and returns how many
// terms it wrote. A paragraph of fewer than 4 terms (a heading, a table
// cell) is dropped; a long one is cut into lines of about 1 KiB.
func emit(w *bufio.Writer, s string) int {
	n := 0
	for para := range strings.SplitSeq(blankLines.ReplaceAllString(s, "\n\n"), "\n\n") {
		var terms []string
		for chunk := range strings.FieldsSeq(para) {
			terms = append(terms, discovery.Terms(chunk)...)
		}
		if len(terms) < 4 {
			continue
		}
		w.WriteString(strings.Join(terms, " "))
		w.WriteByte('\n')
		n += len(terms)
	}
	return n
}

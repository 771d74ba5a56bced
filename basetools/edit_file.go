package basetools

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// editFile implements the tool edit_file: one exact replacement, refused
// when old_text is absent or occurs more than once. The previous content
// goes to the journal under undo_id, for Revert.
type editFile struct{ ws *workspace }

var _ EditFile = (*editFile)(nil)

var editFileErrs = fileErrs{denied: EditFilePermissionDenied, notFound: EditFileNotFound, invalid: EditFileInvalidArgs}

// an edit is a replacement found in a file.
type edit struct {
	l          loc
	prev, next string
	at         int // byte offset of old_text
	line       int
	mode       uint32
}

func (t *editFile) plan(args *EditFileArgs) (*edit, error) {
	l, err := t.ws.resolve(args.Path, true)
	if err != nil {
		return nil, err
	}
	if l.rel == "." {
		return nil, invalid("%s is the workspace folder, not a file", quote(args.Path))
	}
	tg, err := t.ws.openTarget(l)
	if err != nil {
		return nil, err
	}
	defer tg.close()
	cur, err := t.ws.read(tg, t.ws.cfg.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	if !cur.exists {
		return nil, notFound("%s does not exist", quote(l.show))
	}
	s, mode := string(cur.content), cur.mode
	switch n := strings.Count(s, args.OldText); n {
	case 0:
		hint := ""
		if strings.Contains(strings.Join(strings.Fields(s), " "), strings.Join(strings.Fields(args.OldText), " ")) {
			hint = "; it is there with other whitespace: copy it exactly, indentation and line ends included"
		}
		return nil, notFound("old_text does not occur in %s%s", quote(l.show), hint)
	case 1:
	default:
		var lines []string
		for i, off := 0, 0; i < n && i < 5; i++ {
			j := strings.Index(s[off:], args.OldText)
			lines = append(lines, fmt.Sprint(1+strings.Count(s[:off+j], "\n")))
			off += j + len(args.OldText)
		}
		return nil, invalid("old_text occurs %d times in %s (lines %s); quote more of the surrounding text so that it occurs once", n, quote(l.show), strings.Join(lines, ", "))
	}
	at := strings.Index(s, args.OldText)
	next := s[:at] + args.NewText + s[at+len(args.OldText):]
	if int64(len(next)) > t.ws.cfg.MaxFileBytes {
		return nil, invalid("%s would grow to %d bytes, above the limit of %d", quote(l.show), len(next), t.ws.cfg.MaxFileBytes)
	}
	return &edit{l: l, prev: s, next: next, at: at, line: 1 + strings.Count(s[:at], "\n"), mode: uint32(mode)}, nil
}

// Execute makes the replacement.
func (t *editFile) Execute(ctx context.Context, args *EditFileArgs) (*EditFileResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := t.plan(args)
	if err != nil {
		return nil, editFileErrs.toolError(err)
	}
	id := t.ws.journal.put(&undo{rel: e.l.rel, existed: true, prev: []byte(e.prev), mode: fileMode(e.mode)})
	if err := t.ws.write(e.l, []byte(e.next), fileMode(e.mode), true); err != nil {
		t.ws.journal.take(id)
		return nil, editFileErrs.toolError(err)
	}
	return &EditFileResult{Path: e.l.show, Line: int64(e.line), Size: int64(len(e.next)), UndoID: id}, nil
}

// DryRun shows the replacement as a unified diff.
func (t *editFile) DryRun(ctx context.Context, args *EditFileArgs) (*runtime.Preview, error) {
	e, err := t.plan(args)
	if err != nil {
		return nil, editFileErrs.toolError(err)
	}
	return &runtime.Preview{
		Summary: fmt.Sprintf("would replace text at line %d of %s", e.line, e.l.show),
		Effects: []string{fmt.Sprintf("%s: %d bytes become %d", e.l.show, len(e.prev), len(e.next))},
		Data:    map[string]string{"diff": unifiedDiff(e.l.show, e.prev, e.at, len(args.OldText), args.NewText)},
	}, nil
}

// Revert puts back the content before the edit.
func (t *editFile) Revert(ctx context.Context, args *EditFileArgs, result *EditFileResult) error {
	u, ok := t.ws.journal.take(result.UndoID)
	if !ok {
		return EditFileNotFound(fmt.Sprintf("no saved content for undo_id %q: it was undone already or dropped from the host's undo memory", result.UndoID))
	}
	return editFileErrs.toolError(t.ws.restore(u))
}

// unifiedDiff is the diff of replacing s[at:at+n] with repl, with three
// lines of context, in the unified format of diff -u.
func unifiedDiff(name, s string, at, n int, repl string) string {
	const context = 3
	start := strings.LastIndexByte(s[:at], '\n') + 1 // first changed line
	end := at + n                                    // end of the last changed line
	if end == start || s[end-1] != '\n' {
		if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(s)
		}
	}
	oldMid := s[start:end]
	newMid := s[start:at] + repl + s[at+n:end]
	before := splitLines(s[:start])
	after := splitLines(s[end:])
	pre := before[max(0, len(before)-context):]
	post := after[:min(len(after), context)]
	oldLines, newLines := splitLines(oldMid), splitLines(newMid)
	first := len(before) - len(pre) + 1
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	oldN := len(pre) + len(oldLines) + len(post)
	newN := len(pre) + len(newLines) + len(post)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(first, oldN), hunkRange(first, newN))
	for _, l := range pre {
		writeLine(&b, ' ', l)
	}
	for _, l := range oldLines {
		writeLine(&b, '-', l)
	}
	for _, l := range newLines {
		writeLine(&b, '+', l)
	}
	for _, l := range post {
		writeLine(&b, ' ', l)
	}
	return b.String()
}

func hunkRange(first, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", first-1)
	}
	if n == 1 {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d,%d", first, n)
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func writeLine(b *strings.Builder, mark byte, l string) {
	b.WriteByte(mark)
	b.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

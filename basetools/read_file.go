package basetools

import (
	"context"
	"io"
	"strings"
)

// readFile implements the tool read_file. The catalog marks it
// returns_untrusted: the runtime wraps the content as untrusted data.
type readFile struct{ ws *workspace }

var _ ReadFile = (*readFile)(nil)

var readFileErrs = fileErrs{denied: ReadFilePermissionDenied, notFound: ReadFileNotFound, invalid: ReadFileInvalidArgs}

// Execute reads at most max_bytes (and the host's MaxReadBytes) from offset.
func (t *readFile) Execute(ctx context.Context, args *ReadFileArgs) (*ReadFileResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := t.ws.resolve(args.Path, false)
	if err != nil {
		return nil, readFileErrs.toolError(err)
	}
	f, err := openRead(l)
	if err != nil {
		return nil, readFileErrs.toolError(t.ws.classify(l, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, readFileErrs.toolError(t.ws.classify(l, err))
	}
	if fi.IsDir() {
		return nil, ReadFileInvalidArgs(quote(l.show) + " is a folder; list it with list_dir")
	}
	if !fi.Mode().IsRegular() {
		return nil, ReadFileInvalidArgs(quote(l.show) + " is not a regular file")
	}
	if err := t.ws.checkLinks(l, fi, false); err != nil {
		return nil, readFileErrs.toolError(err)
	}
	limit := min(max(args.MaxBytes, 1), t.ws.cfg.MaxReadBytes)
	size := fi.Size()
	off := min(args.Offset, size)
	buf := make([]byte, min(limit, size-off))
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, readFileErrs.toolError(t.ws.classify(l, err))
	}
	return &ReadFileResult{
		Path:      l.show,
		Content:   strings.ToValidUTF8(string(buf[:n]), "\uFFFD"),
		Size:      size,
		Truncated: off+int64(n) < size,
	}, nil
}

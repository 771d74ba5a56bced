package basetools

import (
	"context"
	"fmt"
	"os"

	"github.com/toolcat/toolcat/runtime"
)

// appendFile implements the tool append_file. Its result says how many
// bytes it added, so Revert truncates them away, or removes the file it
// created.
type appendFile struct{ ws *workspace }

var _ AppendFile = (*appendFile)(nil)

var appendFileErrs = fileErrs{denied: AppendFilePermissionDenied, notFound: AppendFileNotFound, invalid: AppendFileInvalidArgs}

// stat returns the size of the file at p (-1 when it does not exist).
func (t *appendFile) stat(p string) (loc, int64, error) {
	l, err := t.ws.resolve(p, true)
	if err != nil {
		return l, 0, err
	}
	if l.rel == "." {
		return l, 0, invalid("%s is the workspace folder, not a file", quote(p))
	}
	fi, err := l.root.r.Stat(l.rel)
	if err != nil {
		if fe := asFileError(t.ws.classify(l, err)); fe != nil && fe.kind == kindNotFound {
			if dirs, err := t.ws.missingDirs(l); err != nil {
				return l, 0, err
			} else if len(dirs) > 0 {
				return l, 0, notFound("the folder %s does not exist; create the file with write_file", quote(dirs[0]))
			}
			return l, -1, nil
		}
		return l, 0, t.ws.classify(l, err)
	}
	if !fi.Mode().IsRegular() {
		return l, 0, invalid("%s is not a regular file", quote(l.show))
	}
	return l, fi.Size(), nil
}

func (t *appendFile) check(args *AppendFileArgs) (loc, int64, error) {
	l, size, err := t.stat(args.Path)
	if err != nil {
		return l, 0, err
	}
	if after := max(size, 0) + int64(len(args.Content)); after > t.ws.cfg.MaxFileBytes {
		return l, 0, invalid("%s would grow to %d bytes, above the limit of %d", quote(l.show), after, t.ws.cfg.MaxFileBytes)
	}
	return l, size, nil
}

// Execute appends the content.
func (t *appendFile) Execute(ctx context.Context, args *AppendFileArgs) (*AppendFileResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, size, err := t.check(args)
	if err != nil {
		return nil, appendFileErrs.toolError(err)
	}
	f, err := l.root.r.OpenFile(l.rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, appendFileErrs.toolError(t.ws.classify(l, err))
	}
	n, werr := f.WriteString(args.Content)
	fi, serr := f.Stat()
	cerr := f.Close()
	if err := firstErr(werr, serr, cerr); err != nil {
		return nil, appendFileErrs.toolError(t.ws.classify(l, err))
	}
	return &AppendFileResult{Path: l.show, BytesAppended: int64(n), Size: fi.Size(), Created: size < 0}, nil
}

// DryRun says where the content would go.
func (t *appendFile) DryRun(ctx context.Context, args *AppendFileArgs) (*runtime.Preview, error) {
	l, size, err := t.check(args)
	if err != nil {
		return nil, appendFileErrs.toolError(err)
	}
	n := len(args.Content)
	if size < 0 {
		return &runtime.Preview{Summary: fmt.Sprintf("would create %s with %d bytes", l.show, n),
			Effects: []string{fmt.Sprintf("%s: created, %d bytes", l.show, n)}}, nil
	}
	return &runtime.Preview{Summary: fmt.Sprintf("would add %d bytes at the end of %s (%d bytes now)", n, l.show, size),
		Effects: []string{fmt.Sprintf("%s: %d bytes appended", l.show, n)}}, nil
}

// Revert truncates the file back to its size before the call, or removes
// it if the call created it.
func (t *appendFile) Revert(ctx context.Context, args *AppendFileArgs, result *AppendFileResult) error {
	l, err := t.ws.resolve(result.Path, true)
	if err != nil {
		return appendFileErrs.toolError(err)
	}
	if result.Created {
		return appendFileErrs.toolError(t.ws.classify(l, l.root.r.Remove(l.rel)))
	}
	before := result.Size - result.BytesAppended
	f, err := l.root.r.OpenFile(l.rel, os.O_WRONLY, 0)
	if err != nil {
		return appendFileErrs.toolError(t.ws.classify(l, err))
	}
	fi, serr := f.Stat()
	if serr == nil && (before < 0 || fi.Size() < before) {
		f.Close()
		return AppendFileInvalidArgs(fmt.Sprintf("%s is %d bytes, shorter than before the append: it changed since, so it is left as it is", quote(l.show), fi.Size()))
	}
	terr := f.Truncate(before)
	cerr := f.Close()
	return appendFileErrs.toolError(t.ws.classify(l, firstErr(serr, terr, cerr)))
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func asFileError(err error) *fileError {
	fe, _ := err.(*fileError)
	return fe
}

func fileMode(m uint32) os.FileMode { return os.FileMode(m) }

package basetools

import (
	"context"
	"fmt"
	"os"

	"github.com/toolcat/toolcat/runtime"
)

// appendFile implements the tool append_file. Its result says how many
// bytes it added, so Revert cuts them away, or removes the file it
// created.
type appendFile struct{ ws *workspace }

var _ AppendFile = (*appendFile)(nil)

var appendFileErrs = fileErrs{denied: AppendFilePermissionDenied, notFound: AppendFileNotFound, invalid: AppendFileInvalidArgs}

// plan reads the file at p as it is now (not existing is not an error).
func (t *appendFile) plan(p string) (loc, current, error) {
	l, err := t.ws.resolve(p, true)
	if err != nil {
		return l, current{}, err
	}
	if l.rel == "." {
		return l, current{}, invalid("%s is the workspace folder, not a file", quote(p))
	}
	if dirs, err := t.ws.missingDirs(l); err != nil {
		return l, current{}, err
	} else if len(dirs) > 0 {
		return l, current{}, notFound("the folder %s does not exist; create the file with write_file", quote(dirs[0]))
	}
	tg, err := t.ws.openTarget(l)
	if err != nil {
		return l, current{}, err
	}
	defer tg.close()
	cur, err := t.ws.read(tg, t.ws.cfg.MaxFileBytes)
	return l, cur, err
}

func (t *appendFile) check(args *AppendFileArgs) (loc, current, error) {
	l, cur, err := t.plan(args.Path)
	if err != nil {
		return l, cur, err
	}
	if after := int64(len(cur.content)) + int64(len(args.Content)); after > t.ws.cfg.MaxFileBytes {
		return l, cur, invalid("%s would grow to %d bytes, above the limit of %d", quote(l.show), after, t.ws.cfg.MaxFileBytes)
	}
	return l, cur, nil
}

// Execute appends the content: the file's content and the new text go to
// a new file renamed over the name, as every write of this package does.
func (t *appendFile) Execute(ctx context.Context, args *AppendFileArgs) (*AppendFileResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, cur, err := t.check(args)
	if err != nil {
		return nil, appendFileErrs.toolError(err)
	}
	mode := cur.mode
	if !cur.exists {
		mode = 0o644
	}
	next := append(cur.content, args.Content...)
	if err := t.ws.write(l, next, mode, cur.exists); err != nil {
		return nil, appendFileErrs.toolError(err)
	}
	return &AppendFileResult{Path: l.show, BytesAppended: int64(len(args.Content)), Size: int64(len(next)), Created: !cur.exists}, nil
}

// DryRun says where the content would go.
func (t *appendFile) DryRun(ctx context.Context, args *AppendFileArgs) (*runtime.Preview, error) {
	l, cur, err := t.check(args)
	if err != nil {
		return nil, appendFileErrs.toolError(err)
	}
	n, size := len(args.Content), len(cur.content)
	if !cur.exists {
		return &runtime.Preview{Summary: fmt.Sprintf("would create %s with %d bytes", l.show, n),
			Effects: []string{fmt.Sprintf("%s: created, %d bytes", l.show, n)}}, nil
	}
	return &runtime.Preview{Summary: fmt.Sprintf("would add %d bytes at the end of %s (%d bytes now)", n, l.show, size),
		Effects: []string{fmt.Sprintf("%s: %d bytes appended", l.show, n)}}, nil
}

// Revert cuts the file back to its size before the call, or removes
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
	_, cur, err := t.plan(result.Path)
	if err != nil {
		return appendFileErrs.toolError(err)
	}
	if !cur.exists {
		return AppendFileNotFound(fmt.Sprintf("%s does not exist any more", quote(l.show)))
	}
	if before < 0 || int64(len(cur.content)) < before {
		return AppendFileInvalidArgs(fmt.Sprintf("%s is %d bytes, shorter than before the append: it changed since, so it is left as it is", quote(l.show), len(cur.content)))
	}
	return appendFileErrs.toolError(t.ws.write(l, cur.content[:before], cur.mode, true))
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

package basetools

import (
	"context"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// writeFile implements the tool write_file. The previous content (or the
// fact that the file did not exist) is kept in the workspace's journal
// under the result's undo_id, for Revert.
type writeFile struct{ ws *workspace }

var _ WriteFile = (*writeFile)(nil)

var writeFileErrs = fileErrs{denied: WriteFilePermissionDenied, notFound: WriteFileNotFound, invalid: WriteFileInvalidArgs}

// plan is what a write would replace.
type plan struct {
	l       loc
	existed bool
	prev    []byte
	mode    uint32
	dirs    []string
}

// planWrite resolves p for writing and reads what is there.
func (ws *workspace) planWrite(p string, size int64) (*plan, error) {
	l, err := ws.resolve(p, true)
	if err != nil {
		return nil, err
	}
	if l.rel == "." {
		return nil, invalid("%s is the workspace folder, not a file", quote(p))
	}
	if size > ws.cfg.MaxFileBytes {
		return nil, invalid("the content is %d bytes, above the limit of %d", size, ws.cfg.MaxFileBytes)
	}
	pl := &plan{l: l, mode: 0o644}
	dirs, err := ws.missingDirs(l)
	if err != nil {
		return nil, err
	}
	if len(dirs) > 0 {
		pl.dirs = dirs
		return pl, nil
	}
	t, err := ws.openTarget(l)
	if err != nil {
		return nil, err
	}
	defer t.close()
	cur, err := ws.read(t, ws.cfg.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	if cur.exists {
		pl.existed, pl.prev, pl.mode = true, cur.content, uint32(cur.mode)
	}
	return pl, nil
}

// Execute writes the file, creating its folders.
func (t *writeFile) Execute(ctx context.Context, args *WriteFileArgs) (*WriteFileResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pl, err := t.ws.planWrite(args.Path, int64(len(args.Content)))
	if err != nil {
		return nil, writeFileErrs.toolError(err)
	}
	if len(pl.dirs) > 0 {
		if err := pl.l.root.r.MkdirAll(pl.dirs[len(pl.dirs)-1], 0o755); err != nil {
			return nil, writeFileErrs.toolError(t.ws.classify(pl.l, err))
		}
	}
	id := t.ws.journal.put(&undo{rel: pl.l.rel, existed: pl.existed, prev: pl.prev, mode: fileMode(pl.mode), dirs: pl.dirs})
	if err := t.ws.write(pl.l, []byte(args.Content), fileMode(pl.mode), pl.existed); err != nil {
		if u, ok := t.ws.journal.take(id); ok && !u.existed {
			_ = t.ws.restore(u)
		}
		return nil, writeFileErrs.toolError(err)
	}
	return &WriteFileResult{Path: pl.l.show, BytesWritten: int64(len(args.Content)), Created: !pl.existed, UndoID: id}, nil
}

// DryRun says whether the file would be created or overwritten.
func (t *writeFile) DryRun(ctx context.Context, args *WriteFileArgs) (*runtime.Preview, error) {
	pl, err := t.ws.planWrite(args.Path, int64(len(args.Content)))
	if err != nil {
		return nil, writeFileErrs.toolError(err)
	}
	n := len(args.Content)
	if pl.existed {
		return &runtime.Preview{
			Summary: fmt.Sprintf("would overwrite %s (%d bytes) with %d bytes", pl.l.show, len(pl.prev), n),
			Effects: []string{fmt.Sprintf("%s: %d bytes replaced by %d", pl.l.show, len(pl.prev), n)},
		}, nil
	}
	eff := []string{fmt.Sprintf("%s: created, %d bytes", pl.l.show, n)}
	for _, d := range pl.dirs {
		eff = append(eff, fmt.Sprintf("%s/: folder created", d))
	}
	return &runtime.Preview{Summary: fmt.Sprintf("would create %s with %d bytes", pl.l.show, n), Effects: eff}, nil
}

// Revert puts back the previous content, or removes the file (and the
// folders) the call created.
func (t *writeFile) Revert(ctx context.Context, args *WriteFileArgs, result *WriteFileResult) error {
	u, ok := t.ws.journal.take(result.UndoID)
	if !ok {
		return WriteFileNotFound(fmt.Sprintf("no saved content for undo_id %q: it was undone already or dropped from the host's undo memory", result.UndoID))
	}
	return writeFileErrs.toolError(t.ws.restore(u))
}

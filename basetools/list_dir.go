package basetools

import (
	"context"
	"io"
	"io/fs"
	"sort"
)

// listDir implements the tool list_dir. The catalog marks it
// returns_untrusted: file names come from anyone who could write them.
type listDir struct{ ws *workspace }

var _ ListDir = (*listDir)(nil)

var listDirErrs = fileErrs{denied: ListDirPermissionDenied, notFound: ListDirNotFound, invalid: ListDirInvalidArgs}

// Execute lists the folder, reading at most the host's MaxListEntries.
func (t *listDir) Execute(ctx context.Context, args *ListDirArgs) (*ListDirResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := args.Path
	if p == "" {
		p = "."
	}
	l, err := t.ws.resolve(p, false)
	if err != nil {
		return nil, listDirErrs.toolError(err)
	}
	f, err := openRead(l)
	if err != nil {
		return nil, listDirErrs.toolError(t.ws.classify(l, err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, listDirErrs.toolError(t.ws.classify(l, err))
	} else if !fi.IsDir() {
		return nil, ListDirInvalidArgs(quote(l.show) + " is a file; read it with read_file")
	}
	var all []fs.DirEntry
	truncated := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := f.ReadDir(1024)
		all = append(all, batch...)
		if len(all) >= t.ws.cfg.MaxListEntries {
			all, truncated = all[:t.ws.cfg.MaxListEntries], true
			break
		}
		if err == io.EOF || len(batch) == 0 {
			break
		}
		if err != nil {
			return nil, listDirErrs.toolError(t.ws.classify(l, err))
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name() < all[j].Name() })
	limit := int(max(args.MaxEntries, 1))
	if len(all) > limit {
		all, truncated = all[:limit], true
	}
	res := &ListDirResult{Path: l.show, Entries: make([]ListDirResultEntriesItem, 0, len(all)), Truncated: truncated}
	budget := maxListingBytes
	for _, e := range all {
		if budget -= len(e.Name()) + 16; budget < 0 {
			res.Truncated = true
			break
		}
		it := ListDirResultEntriesItem{Name: e.Name(), Kind: kindOf(e.Type())}
		if e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				size := fi.Size()
				it.Size = &size
			}
		}
		res.Entries = append(res.Entries, it)
	}
	return res, nil
}

// maxListingBytes bounds the names one list_dir or find_files returns, so
// that the result, escaped as JSON, stays below its max_result_bytes.
const maxListingBytes = 1 << 20

func kindOf(m fs.FileMode) ListDirResultEntriesItemKind {
	switch {
	case m.IsRegular():
		return ListDirResultEntriesItemKindFile
	case m.IsDir():
		return ListDirResultEntriesItemKindDir
	case m&fs.ModeSymlink != 0:
		return ListDirResultEntriesItemKindSymlink
	}
	return ListDirResultEntriesItemKindOther
}

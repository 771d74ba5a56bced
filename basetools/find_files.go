package basetools

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
)

// findFiles implements the tool find_files: a walk of the folder through
// os.Root's file system (symlinks are listed, never followed), bounded by
// the host's MaxFindVisits.
type findFiles struct{ ws *workspace }

var _ FindFiles = (*findFiles)(nil)

var findFilesErrs = fileErrs{denied: FindFilesPermissionDenied, notFound: FindFilesNotFound, invalid: FindFilesInvalidArgs}

var errStop = errors.New("stop")

// Execute walks the folder in lexical order and returns the files whose
// path below it matches the pattern.
func (t *findFiles) Execute(ctx context.Context, args *FindFilesArgs) (*FindFilesResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	segs, err := compileGlob(args.Pattern)
	if err != nil {
		return nil, FindFilesInvalidArgs(err.Error())
	}
	p := args.Path
	if p == "" {
		p = "."
	}
	l, err := t.ws.resolve(p, false)
	if err != nil {
		return nil, findFilesErrs.toolError(err)
	}
	fi, err := l.root.r.Stat(l.rel)
	if err != nil {
		return nil, findFilesErrs.toolError(t.ws.classify(l, err))
	}
	if !fi.IsDir() {
		return nil, FindFilesInvalidArgs(quote(l.show) + " is a file, not a folder")
	}
	limit := int(max(args.MaxResults, 1))
	res := &FindFilesResult{Paths: []string{}}
	visits, budget := 0, maxListingBytes
	fsys := l.root.r.FS()
	err = fs.WalkDir(fsys, l.rel, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == l.rel {
				return err
			}
			return nil // an unreadable folder is skipped
		}
		visits++
		if visits > t.ws.cfg.MaxFindVisits {
			res.Truncated = true
			return errStop
		}
		if d.IsDir() || p == l.rel {
			return nil
		}
		rel := p
		if l.rel != "." {
			rel = strings.TrimPrefix(p, l.rel+"/")
		}
		if !matchGlob(segs, strings.Split(rel, "/")) {
			return nil
		}
		if budget -= len(p) + len(l.root.dir) + 4; len(res.Paths) == limit || budget < 0 {
			res.Truncated = true
			return errStop
		}
		if l.root != t.ws.roots[0] {
			p = path.Join(l.root.dir, p)
		}
		res.Paths = append(res.Paths, p)
		return nil
	})
	if err != nil && err != errStop {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, findFilesErrs.toolError(t.ws.classify(l, err))
	}
	return res, nil
}

// compileGlob splits a pattern into segments and checks each.
func compileGlob(pattern string) ([]string, error) {
	if strings.HasPrefix(pattern, "/") {
		return nil, errors.New("the pattern is absolute; give it relative to path, such as \"**/*.go\"")
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, errors.New("the pattern holds a NUL byte")
	}
	segs := strings.Split(path.Clean(pattern), "/")
	stars := 0
	for _, s := range segs {
		if s == "**" {
			stars++
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, errors.New("the pattern " + quote(pattern) + " is not a valid glob: " + err.Error())
		}
	}
	if stars > 8 {
		return nil, errors.New("the pattern has more than 8 ** segments")
	}
	return segs, nil
}

// matchGlob matches path segments against pattern segments, "**"
// matching any number of them.
func matchGlob(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchGlob(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Command wordnetgen writes runtime/discovery's table of related words
// (wordnet.txt) from Princeton WordNet 3.0: for each word, the other words
// of its most frequent senses (synonyms) and the words derived from or to
// it (create, creation, creator), and for irregular forms their base form
// (ran: run, indices: index). Words are written as the index's terms
// (stemmed with discovery.Terms), so the table is looked up as is.
//
// It is not run by the tests or by go generate: the table is committed.
// With WordNet installed (Debian: apt-get install wordnet-base):
//
//	go run ./runtime/discovery/internal/wordnetgen -wordnet /usr/share/wordnet -out runtime/discovery/wordnet.txt
//
// -vocab dir (repeatable) keeps only related words that occur in the JSON
// files under dir (tool lists), so that the table holds the words that
// tools use.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/runtime/discovery"
)

type vocabFlag []string

func (v *vocabFlag) String() string     { return strings.Join(*v, ",") }
func (v *vocabFlag) Set(s string) error { *v = append(*v, s); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

type config struct {
	dir      string
	out      string
	senses   int  // senses of a word read, most frequent first, per part of speech
	synonyms bool // the other words of a sense
	derived  bool // derivationally related forms
	mutual   bool // keep a related term only if the term is related to it too
	attrs    bool // an adjective's attribute nouns (high: height, far: distance)
	domain   bool // of the senses read, only the one whose gloss is most about the -vocab text
	antonyms bool // antonyms of the senses read, written !term
	inst     bool // what a named thing is an instance of (paris: capital, city)
	maxRel   int  // related terms kept per term
	minLen   int  // shortest term kept, as a key or a related term
	vocab    vocabFlag
	posNames string
}

func run(args []string) error {
	var c config
	fs := flag.NewFlagSet("wordnetgen", flag.ContinueOnError)
	fs.StringVar(&c.dir, "wordnet", "/usr/share/wordnet", "directory of the WordNet 3.0 database files (index.verb, data.verb, ...)")
	fs.StringVar(&c.out, "out", "wordnet.txt", "file to write")
	fs.IntVar(&c.senses, "senses", 1, "senses read per word and part of speech, the most frequent first")
	fs.BoolVar(&c.synonyms, "synonyms", true, "add the other words of each sense read")
	fs.BoolVar(&c.derived, "derived", true, "add derivationally related forms")
	fs.BoolVar(&c.attrs, "attributes", false, "add the nouns an adjective is a value of (fast: speed)")
	fs.BoolVar(&c.domain, "domain", false, "of the senses read, keep the one whose words and gloss occur most in the -vocab text")
	fs.BoolVar(&c.antonyms, "antonyms", false, "add the antonyms of each sense read, as !term")
	fs.BoolVar(&c.inst, "instances", false, "add what a proper noun is an instance of, and that class's class (denver: city, municipality)")
	fs.BoolVar(&c.mutual, "mutual", false, "keep b related to a only when a is related to b within the senses read")
	fs.IntVar(&c.maxRel, "max", 6, "related terms kept per term")
	fs.IntVar(&c.minLen, "minlen", 3, "shortest term kept")
	fs.StringVar(&c.posNames, "pos", "verb,noun,adj", "parts of speech read")
	fs.Var(&c.vocab, "vocab", "directory of JSON tool lists; only related terms found there are kept (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var vocab map[string]bool
	db := &wordnet{synsets: map[synsetKey]*synset{}, df: map[string]int{}}
	if len(c.vocab) > 0 {
		vocab = map[string]bool{}
		for _, d := range c.vocab {
			if err := readVocab(d, vocab, db.df); err != nil {
				return err
			}
		}
	}
	var posList []string
	for _, p := range strings.Split(c.posNames, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if err := db.readData(filepath.Join(c.dir, "data."+p)); err != nil {
			return err
		}
		posList = append(posList, p)
	}
	if c.inst {
		db.common, db.commonNoun = map[string]bool{}, map[string]bool{}
		for _, p := range []string{"verb", "adj", "adv"} {
			b, err := os.ReadFile(filepath.Join(c.dir, "index."+p))
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
					if t := term(f[0], 1); t != "" {
						db.common[t] = true
					}
				}
			}
		}
		// Nouns whose first sense is not a name are common too.
		b, err := os.ReadFile(filepath.Join(c.dir, "index.noun"))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 6 || strings.HasPrefix(line, " ") {
				continue
			}
			np, _ := strconv.Atoi(f[3])
			if len(f) <= 6+np {
				continue
			}
			off, _ := strconv.Atoi(f[6+np])
			s := db.synsets[synsetKey{'n', off}]
			if s == nil {
				continue
			}
			if i := slices.Index(s.words, f[0]); i >= 0 && !s.proper[i] {
				db.commonNoun[f[0]] = true
			}
		}
	}
	rel := newRelations()
	for _, p := range posList {
		if err := db.readIndex(filepath.Join(c.dir, "index."+p), c, rel); err != nil {
			return err
		}
	}
	forms := map[string]string{}
	for _, p := range []string{"verb", "noun", "adj"} {
		if err := readExceptions(filepath.Join(c.dir, p+".exc"), c, forms); err != nil {
			return err
		}
	}
	for a, bs := range rel.ant { // antonymy goes both ways
		for _, b := range bs {
			rel.addAnt(b, a)
		}
	}
	return write(c, rel, forms, vocab)
}

// readVocab adds the terms of every string in the JSON files under dir.
func readVocab(dir string, vocab map[string]bool, df map[string]int) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".snap")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			return nil
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				seen := map[string]bool{}
				for _, t := range discovery.Terms(v) {
					vocab[t] = true
					if !seen[t] {
						seen[t] = true
						df[t]++
					}
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					for _, t := range discovery.Terms(k) {
						vocab[t] = true
					}
					walk(x)
				}
			}
		}
		walk(v)
		return nil
	})
}

type synsetKey struct {
	pos    byte
	offset int
}

type pointer struct {
	symbol      string
	target      synsetKey
	source, dst int // word numbers, 1-based; 0 for the whole synset
}

type synset struct {
	words  []string
	proper []bool // the word is capitalised: a name

	pointers []pointer
	gloss    string
}

type wordnet struct {
	synsets    map[synsetKey]*synset
	common     map[string]bool // terms of verbs, adjectives and adverbs
	commonNoun map[string]bool // nouns whose first sense is not a name
	df         map[string]int  // in how many strings of the -vocab text a term is
}

// domainScore is how much a sense's words and gloss are about the -vocab
// text: the mean of log(1 + df) over their distinct terms, lemma aside.
func (db *wordnet) domainScore(s *synset, lemma string) float64 {
	seen := map[string]bool{}
	sum := 0.0
	add := func(text string) {
		for _, t := range discovery.Terms(text) {
			if seen[t] || t == lemma {
				continue
			}
			seen[t] = true
			sum += math.Log1p(float64(db.df[t]))
		}
	}
	for _, w := range s.words {
		add(strings.ReplaceAll(w, "_", " "))
	}
	add(s.gloss)
	if len(seen) == 0 {
		return 0
	}
	return sum / float64(len(seen))
}

// posByte is the one-letter part of speech of data and index lines; data
// lines mark adjective satellites s, index lines use a.
func posByte(s string) byte {
	if s == "s" {
		return 'a'
	}
	return s[0]
}

// readData reads a data.* file: one synset a line, after the licence
// lines that start with two spaces.
func (db *wordnet) readData(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "  ") {
			continue
		}
		gloss := ""
		if i := strings.Index(text, " | "); i >= 0 {
			text, gloss = text[:i], text[i+3:]
			if j := strings.Index(gloss, "; \""); j >= 0 { // examples
				gloss = gloss[:j]
			}
		}
		fl := strings.Fields(text)
		if len(fl) < 4 {
			return fmt.Errorf("%s:%d: short synset line", path, line)
		}
		off, err := strconv.Atoi(fl[0])
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		key := synsetKey{posByte(fl[2]), off}
		n, err := strconv.ParseInt(fl[3], 16, 32)
		if err != nil || 4+2*int(n) >= len(fl) {
			return fmt.Errorf("%s:%d: bad word count", path, line)
		}
		s := &synset{gloss: gloss}
		for i := range int(n) {
			w := fl[4+2*i]
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers: (a), (p), (ip)
				w = w[:j]
			}
			s.words = append(s.words, strings.ToLower(w))
			s.proper = append(s.proper, w != strings.ToLower(w))
		}
		i := 4 + 2*int(n)
		pc, err := strconv.Atoi(fl[i])
		if err != nil || i+1+4*pc > len(fl) {
			return fmt.Errorf("%s:%d: bad pointer count", path, line)
		}
		for p := range pc {
			g := fl[i+1+4*p : i+5+4*p]
			toff, err := strconv.Atoi(g[1])
			if err != nil || len(g[3]) != 4 {
				return fmt.Errorf("%s:%d: bad pointer", path, line)
			}
			src, err1 := strconv.ParseInt(g[3][:2], 16, 32)
			dst, err2 := strconv.ParseInt(g[3][2:], 16, 32)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s:%d: bad pointer words", path, line)
			}
			s.pointers = append(s.pointers, pointer{g[0], synsetKey{posByte(g[2]), toff}, int(src), int(dst)})
		}
		db.synsets[key] = s
	}
	return sc.Err()
}

// relations holds, by term, its related terms in the order met (the most
// frequent sense first).
type relations struct {
	m   map[string][]string
	ant map[string][]string
}

func newRelations() *relations {
	return &relations{m: map[string][]string{}, ant: map[string][]string{}}
}

func (r *relations) addAnt(from, to string) {
	if from == to || slices.Contains(r.ant[from], to) {
		return
	}
	r.ant[from] = append(r.ant[from], to)
}

func (r *relations) add(from, to string) {
	if from == to || slices.Contains(r.m[from], to) {
		return
	}
	r.m[from] = append(r.m[from], to)
}

// term is the one index term of a single word, or "" for a phrase, a word
// that is not letters, a stop word or one that splits.
func term(w string, minLen int) string {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	t := discovery.Terms(w)
	if len(t) != 1 || len(t[0]) < minLen {
		return ""
	}
	return t[0]
}

// readIndex reads an index.* file: per lemma, its synsets by frequency.
// The first c.senses of them give the lemma's synonyms and, with
// c.derived, its derivationally related forms.
func (db *wordnet) readIndex(path string, c config, rel *relations) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "  ") {
			continue
		}
		fl := strings.Fields(text)
		if len(fl) < 6 {
			return fmt.Errorf("%s:%d: short index line", path, line)
		}
		lemma := fl[0]
		from := term(lemma, c.minLen)
		if from == "" {
			continue
		}
		pos := posByte(fl[1])
		nsyn, err1 := strconv.Atoi(fl[2])
		np, err2 := strconv.Atoi(fl[3])
		if err1 != nil || err2 != nil || 6+np+nsyn > len(fl) {
			return fmt.Errorf("%s:%d: bad counts", path, line)
		}
		offs := fl[6+np:]
		offs = offs[:min(len(offs), c.senses)]
		if c.domain && len(offs) > 1 {
			best, bestScore := offs[0], -1.0
			for _, o := range offs {
				off, _ := strconv.Atoi(o)
				if s := db.synsets[synsetKey{pos, off}]; s != nil {
					if sc := db.domainScore(s, from); sc > bestScore {
						best, bestScore = o, sc
					}
				}
			}
			offs = []string{best}
		}
		for i, o := range offs {
			off, err := strconv.Atoi(o)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", path, line, err)
			}
			s := db.synsets[synsetKey{pos, off}]
			if s == nil {
				return fmt.Errorf("%s:%d: synset %s not in the data file", path, line, o)
			}
			wordNum := slices.Index(s.words, lemma) + 1
			for _, w := range s.words {
				if t := term(w, c.minLen); t != "" && c.synonyms {
					rel.add(from, t)
				}
			}
			for _, p := range s.pointers {
				if !c.antonyms || p.symbol != "!" || p.source != wordNum || wordNum == 0 {
					continue
				}
				if ts := db.synsets[p.target]; ts != nil && p.dst >= 1 && p.dst <= len(ts.words) {
					if t := term(ts.words[p.dst-1], c.minLen); t != "" {
						rel.addAnt(from, t)
					}
				}
			}
			for _, p := range s.pointers {
				if !c.inst || p.symbol != "@i" || i > 0 || db.common[from] || db.commonNoun[lemma] || wordNum == 0 || !s.proper[wordNum-1] {
					continue
				}
				ts := db.synsets[p.target]
				if ts == nil {
					continue
				}
				// The class's names by their head (state_capital: capital),
				// then the first name of each class above it (city).
				for _, w := range ts.words {
					if t := term(w[strings.LastIndexByte(w, '_')+1:], c.minLen); t != "" {
						rel.add(from, t)
					}
				}
				for _, hp := range ts.pointers {
					if hs := db.synsets[hp.target]; hp.symbol == "@" && hs != nil && len(hs.words) > 0 {
						if t := term(hs.words[0], c.minLen); t != "" {
							rel.add(from, t)
						}
					}
				}
			}
			for _, p := range s.pointers {
				if !c.attrs || p.symbol != "=" || pos != 'a' {
					continue
				}
				if ts := db.synsets[p.target]; ts != nil {
					for _, w := range ts.words {
						if t := term(w, c.minLen); t != "" {
							rel.add(from, t)
						}
					}
				}
			}
			if !c.derived {
				continue
			}
			for _, p := range s.pointers {
				if p.symbol != "+" || p.source != wordNum || wordNum == 0 {
					continue
				}
				ts := db.synsets[p.target]
				if ts == nil || p.dst < 1 || p.dst > len(ts.words) {
					continue // a part of speech not read
				}
				if t := term(ts.words[p.dst-1], c.minLen); t != "" {
					rel.add(from, t)
				}
			}
		}
	}
	return sc.Err()
}

// readExceptions reads an *.exc file: an irregular form, then its base
// forms (ran run, indices index).
func readExceptions(path string, c config, forms map[string]string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		fl := strings.Fields(line)
		if len(fl) < 2 {
			continue
		}
		from, to := term(fl[0], c.minLen), term(fl[1], c.minLen)
		if from == "" || to == "" || from == to {
			continue
		}
		if _, ok := forms[from]; !ok {
			forms[from] = to
		}
	}
	return nil
}

const header = `# Related words for runtime/discovery's query expansion, derived from
# Princeton WordNet 3.0 (see WORDNET_LICENSE next to this file) by
# runtime/discovery/internal/wordnetgen. Do not edit: regenerate.
# A line is a term, then its related terms, all as index terms (stemmed);
# a related term written =term is the base form of an irregular form.
`

func write(c config, rel *relations, forms map[string]string, vocab map[string]bool) error {
	keys := map[string]bool{}
	for k := range rel.m {
		keys[k] = true
	}
	for k := range forms {
		keys[k] = true
	}
	for k := range rel.ant {
		keys[k] = true
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	})
	var b strings.Builder
	b.WriteString(header)
	lines := 0
	for _, k := range sorted {
		var out []string
		if f, ok := forms[k]; ok && (vocab == nil || vocab[f]) {
			out = append(out, "="+f)
		}
		for _, t := range rel.ant[k] {
			if vocab == nil || vocab[t] {
				out = append(out, "!"+t)
			}
		}
		n := 0
		for _, t := range rel.m[k] {
			if n >= c.maxRel {
				break
			}
			if vocab != nil && !vocab[t] {
				continue
			}
			if c.mutual && !slices.Contains(rel.m[t], k) {
				continue
			}
			out = append(out, t)
			n++
		}
		if len(out) == 0 {
			continue
		}
		b.WriteString(k)
		for _, t := range out {
			b.WriteByte(' ')
			b.WriteString(t)
		}
		b.WriteByte('\n')
		lines++
	}
	if err := os.WriteFile(c.out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wordnetgen: %d terms, %d bytes to %s\n", lines, b.Len(), c.out)
	return nil
}

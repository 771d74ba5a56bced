package basetools

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText parses an HTML document and returns its title and its readable
// text: scripts, styles and other invisible elements dropped, block
// elements on lines of their own, runs of white space collapsed, list
// items marked with "- ".
func htmlText(doc []byte) (title, text string, err error) {
	n, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return "", "", err
	}
	var b textBuilder
	var walk func(*html.Node, int)
	walk = func(n *html.Node, depth int) {
		if depth > 512 { // html.Parse bounds nesting too; stay shallow anyway
			return
		}
		switch n.Type {
		case html.TextNode:
			b.words(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Title:
				if title == "" {
					title = strings.Join(strings.Fields(nodeText(n)), " ")
				}
				return
			case atom.Head:
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.DataAtom == atom.Title && title == "" {
						title = strings.Join(strings.Fields(nodeText(c)), " ")
					}
				}
				return
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
				return
			case atom.Br:
				b.newline()
				return
			}
		}
		block := n.Type == html.ElementNode && isBlock(n.DataAtom)
		if block {
			b.newline()
			if n.DataAtom == atom.Li {
				b.raw("- ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
		if block {
			b.newline()
		}
	}
	walk(n, 0)
	return title, strings.TrimSpace(b.sb.String()), nil
}

func nodeText(n *html.Node) string {
	var sb strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			sb.WriteString(c.Data)
		}
	}
	return sb.String()
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Main,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Li, atom.Dl, atom.Dt, atom.Dd,
		atom.Pre, atom.Blockquote, atom.Table, atom.Tr, atom.Form, atom.Figure, atom.Figcaption, atom.Hr, atom.Body:
		return true
	}
	return false
}

// textBuilder joins words with single spaces and blocks with newlines.
type textBuilder struct {
	sb    strings.Builder
	space bool // a space is due before the next word
}

func (b *textBuilder) words(s string) {
	if s == "" {
		return
	}
	if isSpace(s[0]) {
		b.space = true
	}
	for i, w := range strings.Fields(s) {
		if (i > 0 || b.space) && b.sb.Len() > 0 && !b.atLineStart() {
			b.sb.WriteByte(' ')
		}
		b.sb.WriteString(w)
		b.space = false
	}
	if isSpace(s[len(s)-1]) {
		b.space = true
	}
}

func (b *textBuilder) raw(s string) { b.sb.WriteString(s); b.space = false }

func (b *textBuilder) atLineStart() bool {
	s := b.sb.String()
	return s == "" || s[len(s)-1] == '\n' || strings.HasSuffix(s, "- ")
}

func (b *textBuilder) newline() {
	s := b.sb.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.sb.WriteByte('\n')
	}
	b.space = false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

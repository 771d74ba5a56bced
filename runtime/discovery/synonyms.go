package discovery

import (
	"strings"
	"unicode"
)

// synonymGroups are words that people use for one another when they ask
// for a tool. A query term also searches the other words of its groups,
// with the weight SynonymWeight. Mostly verbs, since tool names start with
// one, plus common abbreviations and a few nouns of everyday tools.
var synonymGroups = [][]string{
	// verbs
	{"find", "search", "look", "lookup", "query", "list", "get", "fetch", "retrieve", "read", "show", "view", "display", "browse", "locate", "check"},
	{"create", "add", "make", "new", "open", "insert", "register", "post"},
	{"write", "save", "store", "overwrite", "record", "remember"},
	{"delete", "remove", "erase", "drop", "destroy", "purge", "trash", "discard", "wipe", "forget"},
	{"update", "edit", "change", "modify", "set", "rename", "alter", "patch", "adjust", "replace"},
	{"send", "post", "email", "message", "mail", "notify", "dm", "ping"},
	{"run", "execute", "start", "launch", "trigger", "invoke", "kick", "evaluate"},
	{"stop", "cancel", "kill", "halt", "abort", "terminate", "end"},
	{"schedule", "book", "plan", "arrange", "reserve"},
	{"upload", "attach", "put"},
	{"download", "export", "fetch", "dump"},
	{"copy", "duplicate", "clone"},
	{"move", "relocate", "transfer"},
	{"close", "resolve", "finish", "complete"},
	{"pay", "charge", "bill"},
	{"refund", "reimburse", "reverse"},
	{"summarize", "summarise", "digest", "tldr"},
	{"translate", "convert"},
	{"approve", "accept", "confirm"},
	{"reject", "decline", "deny"},
	{"merge", "combine", "join"},
	{"assign", "assignee", "owner"},
	{"enable", "activate", "toggle"},
	{"disable", "deactivate", "toggle"},
	// abbreviations, nouns, adjectives
	{"web", "online", "internet", "google"},
	{"free", "available", "availability"},
	{"size", "big", "large", "bytes", "storage", "disk"},
	{"multiple", "many", "several", "batch", "bulk"},
	{"url", "link", "page", "website"},
	{"repo", "repository"},
	{"dir", "directory", "folder"},
	{"db", "database"},
	{"msg", "message"},
	{"doc", "document"},
	{"img", "image", "picture", "photo", "media"},
	{"meeting", "event", "appointment"},
	{"issue", "ticket", "bug"},
	{"pr", "pull"},
	{"mr", "merge"},
	{"customer", "client"},
	{"user", "account", "member"},
	{"invoice", "bill"},
	{"weather", "forecast"},
	{"price", "cost", "quote"},
	{"config", "configuration", "setting"},
	{"env", "environment"},
	{"stat", "statistic", "metric"},
	{"info", "information", "detail"},
	{"now", "current", "currently"},
	{"app", "application"},
	{"org", "organization", "organisation"},
	{"row", "record", "entry"},
	{"column", "field", "property", "attribute"},
	{"sheet", "spreadsheet", "worksheet", "workbook", "excel"},
	{"coordinates", "geocode", "latitude", "longitude"},
	{"error", "exception", "crash", "failure", "fail", "broken"},
	{"log", "output", "print"},
	{"deploy", "ship", "rollout"},
	{"restart", "reboot", "bounce"},
	{"team", "group", "squad"},
	{"chart", "graph", "plot", "diagram", "visualize", "visualise"},
	{"note", "comment", "remark"},
	{"reply", "respond", "answer"},
	{"task", "todo", "chore"},
	{"sprint", "iteration", "cycle"},
	{"label", "tag"},
	{"star", "favorite", "favourite", "bookmark"},
	{"permission", "access", "role", "privilege"},
	{"slow", "latency", "performance", "speed", "fast"},
	{"health", "status"},
	{"backup", "snapshot"},
	{"server", "host", "machine", "vm", "instance"},
	{"container", "pod"},
	{"near", "nearby", "around"},
	{"route", "directions", "path"},
	{"address", "location", "place"},
	{"paper", "article", "publication"},
	{"news", "headline"},
	{"video", "clip", "movie"},
	{"dependency", "depend", "block", "blocker", "prerequisite"},
	{"review", "feedback"},
	{"reaction", "emoji", "react"},
	{"follower", "subscriber", "friend"},
	{"broadcast", "announce", "blast"},
	{"remote", "origin", "upstream"},
	{"undo", "revert", "rollback"},
	{"pipeline", "workflow"},
	{"job", "build"},
	{"contact", "person", "people"},
	{"inbox", "mailbox"},
	{"agenda", "calendar"},
	{"reminder", "alarm"},
	{"monitor", "alert", "alarm"},
	{"incident", "outage"},
	{"usage", "consumption", "quota", "limit"},
	{"summary", "overview"},
	{"import", "load", "ingest"},
	{"sync", "synchronize", "synchronise", "refresh"},
	{"restore", "recover"},
	{"publish", "release"},
	{"analyze", "analyse", "inspect", "diagnose", "debug", "investigate", "troubleshoot"},
	{"compare", "diff"},
	{"validate", "verify", "lint"},
	{"count", "total", "tally"},
	{"explain", "describe"},
	{"watch", "track"},
	{"mute", "silence"},
	{"login", "signin", "authenticate"},
	{"logout", "signout"},
	{"invite", "share"},
	{"generate", "render", "draw"},
	{"extract", "parse", "scrape"},
	{"scale", "resize"},
}

// The tables below are built from the groups by the tokenizer, so that
// their words are terms as the index has them.
var (
	synonyms      map[string][]string
	questionTerms []string
)

func init() { buildTables() }

// buildTables builds the tables derived from the groups above, again when
// the ablation harness changes how words become terms.
func buildTables() {
	synonyms = makeSynonyms()
	questionTerms = makeQuestionTerms()
}

// makeSynonyms maps a term to the terms of its groups.
func makeSynonyms() map[string][]string {
	var t tokenizer
	termOf := func(w string) string {
		var out string
		t.tokens(w, func(term []byte) { out = string(term) })
		return out
	}
	m := map[string][]string{}
	for _, g := range synonymGroups {
		terms := make([]string, 0, len(g))
		for _, w := range g {
			if s := termOf(w); s != "" {
				terms = append(terms, s)
			}
		}
		for _, a := range terms {
			for _, b := range terms {
				if a != b && !contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// questionWords start a request that asks to read something.
var questionWords = map[string]bool{
	"what": true, "whats": true, "which": true, "who": true, "when": true, "where": true,
	"how": true, "is": true, "are": true, "do": true, "does": true, "did": true,
	"any": true, "have": true, "has": true,
}

// makeQuestionTerms: the verbs a question implies, as terms.
func makeQuestionTerms() []string {
	var out []string
	for _, w := range []string{"get", "list", "search", "find", "show", "read", "fetch", "view"} {
		out = append(out, Terms(w)...)
	}
	return out
}

// isQuestion reports whether the request's first word is a question word
// or it ends with a question mark.
func isQuestion(q string) bool {
	q = strings.TrimSpace(q)
	if strings.HasSuffix(q, "?") {
		return true
	}
	end := strings.IndexFunc(q, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(q)
	}
	return questionWords[strings.ToLower(q[:end])]
}

package discovery

import "testing"

func TestStem(t *testing.T) {
	// Pairs from the Porter2 definition's sample vocabulary, and words of
	// tool descriptions.
	cases := map[string]string{
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consist": "consist", "consisted": "consist", "consistency": "consist", "consistent": "consist",
		"consistently": "consist", "consisting": "consist", "consists": "consist",
		"consolation": "consol", "consolations": "consol", "consolatory": "consolatori",
		"console": "consol", "consoled": "consol", "consoles": "consol", "consolidate": "consolid",
		"consolidated": "consolid", "consolidating": "consolid", "consoling": "consol",
		"consolingly": "consol", "consols": "consol", "consonant": "conson", "consort": "consort",
		"consorted": "consort", "conspicuous": "conspicu", "conspicuously": "conspicu",
		"conspiracy": "conspiraci", "conspirator": "conspir", "conspirators": "conspir",
		"conspire": "conspir", "conspired": "conspir", "conspiring": "conspir",
		"constable": "constabl", "constables": "constabl", "constance": "constanc",
		"constancy": "constanc", "constant": "constant",
		"knack": "knack", "knackeries": "knackeri", "knaves": "knave", "knavish": "knavish",
		"kneaded": "knead", "kneeling": "kneel", "knees": "knee", "knightly": "knight",
		"knitted": "knit", "knitting": "knit", "knives": "knive", "knocker": "knocker",
		"knocking": "knock",
		// step 1a, 1b, 1c and the exceptions
		"caresses": "caress", "ties": "tie", "cries": "cri", "gas": "gas", "gaps": "gap",
		"kiwis": "kiwi", "hoped": "hope", "hopping": "hop", "luxuriated": "luxuri",
		"cry": "cri", "by": "by", "say": "say", "skies": "sky", "dying": "die", "news": "news",
		"proceed": "proceed", "generate": "generat", "generously": "generous", "communism": "communism",
		// words of tool descriptions: forms of one word meet
		"searches": "search", "searching": "search", "searched": "search",
		"files": "file", "filed": "file", "repositories": "repositori", "repository": "repositori",
		"deletes": "delet", "deleting": "delet", "deleted": "delet", "delete": "delet",
		"messages": "messag", "messaging": "messag", "message": "messag",
		"creates": "creat", "creation": "creation", "listing": "list", "invoices": "invoic",
		// not ASCII lower-case words: unchanged
		"café": "café", "naïve": "naïve", "s3": "s3",
	}
	for in, want := range cases {
		got := string(stem([]byte(in)))
		if got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

package discovery

// feature is one ranking feature of the index, which the ablation harness
// (ablation_test.go) switches off one at a time to measure what it is
// worth. Nothing but that harness changes which features are on.
type feature uint32

const (
	featFieldWeights  feature = 1 << iota // each field's own weight and b (off: all 1 and 0.75)
	featUseWhen                           // "Use when" text as a field of its own (off: the body)
	featDoNotUse                          // "Do not use" text left out (off: the body)
	featStem                              // Porter2 stemming
	featStopWords                         // stop words dropped
	featSynonyms                          // query words also search their synonyms
	featPhrasal                           // phrasal verbs read as what they mean
	featHyphen                            // hyphenated words also joined
	featQuestion                          // a question also searches the reading verbs
	featContent                           // a request's content weighs less
	featCoord                             // coordination by rarity
	featNameCoverage                      // name coverage
	featVerbAgreement                     // verb agreement
	featSpecialTokens                     // URLs, e-mail addresses and file names as words
	numFeatures       = iota
)

// featureNames name the features in the ablation harness's table.
var featureNames = [numFeatures]string{
	"field weights", "use when field", "do not use dropped", "stemming", "stop words",
	"synonyms", "phrasal verbs", "hyphenated words", "questions", "content weighs less",
	"coordination", "name coverage", "verb agreement", "urls, e-mails, file names",
}

// disabled holds the features switched off. After changing it (and
// calling buildTables when featStem or featStopWords changed), build the
// index again.
var disabled feature

func on(f feature) bool { return disabled&f == 0 }

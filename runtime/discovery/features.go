package discovery

// feature is one ranking feature of the index, which the ablation harness
// (ablation_test.go) switches off one at a time to measure what it is
// worth. Nothing but that harness changes which features are on.
type feature uint32

const (
	featFieldWeights  feature = 1 << iota // each field's own weight and b (off: all 1 and 0.75)
	featStopWords                         // stop words dropped
	featSynonyms                          // query words also search their synonyms
	featPhrasal                           // phrasal verbs read as what they mean
	featQuestion                          // a question also searches the reading verbs
	featCoord                             // coordination by rarity
	featNameCoverage                      // name coverage
	featSpecialTokens                     // URLs, e-mail addresses and file names as words
	numFeatures       = iota
)

// featureNames name the features in the ablation harness's table.
var featureNames = [numFeatures]string{
	"field weights", "stop words", "synonyms", "phrasal verbs", "questions",
	"coordination", "name coverage", "urls, e-mails, file names",
}

// disabled holds the features switched off. After changing it (and
// calling buildTables when featStopWords changed), build the index again.
var disabled feature

func on(f feature) bool { return disabled&f == 0 }

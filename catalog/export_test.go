package catalog

// LoadBothWays loads files as LoadFiles does, and again evaluating them
// in CUE whatever they are; direct tells whether the first load decoded
// the catalog without CUE. The tests of package catalog_test, which may
// import the importer, compare the two.
func LoadBothWays(files ...File) (fast, viaCUE *Catalog, fastErr, cueErr error, direct bool) {
	l := newLoader()
	fast, fastErr = l.within(defaultBudget, files)
	c := newLoader()
	c.cueOnly = true
	viaCUE, cueErr = c.within(defaultBudget, files)
	return fast, viaCUE, fastErr, cueErr, l.tookDirect
}

// CatalogFiles is catalogFiles: the files Load reads for paths.
var CatalogFiles = catalogFiles

// LoadFilesCUE is LoadFiles evaluating the catalog in CUE whatever it is.
func LoadFilesCUE(files ...File) (*Catalog, error) {
	l := newLoader()
	l.cueOnly = true
	return l.within(defaultBudget, files)
}

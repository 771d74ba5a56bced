package gen

// SetPreformatDescs turns gen's own layout of data-mode descriptors on
// or off (see preformatDescs), for the tests of package gen_test.
func SetPreformatDescs(on bool) { preformatDescs = on }

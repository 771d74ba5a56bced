package lint

import (
	"regexp"

	"github.com/toolcat/toolcat/catalog"
)

// VersionSemver checks that tool versions can be compared.
var VersionSemver = &Rule{
	ID:       "VERSION_SEMVER",
	Category: "catalog",
	Purpose:  "Checks that a tool's version is semantic versioning, MAJOR.MINOR.PATCH with an optional -prerelease and +build, so breaking-change checks can compare versions.",
	Check:    forEachTool(checkVersionSemver),
}

// semverRE is the expression of semver.org, 2.0.0.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

var looseVersionRE = regexp.MustCompile(`^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$`)

func checkVersionSemver(p *Pass, t *catalog.Tool) {
	if t.Version == "" || semverRE.MatchString(t.Version) {
		return
	}
	hint := "use a version such as \"1.0.0\""
	if m := looseVersionRE.FindStringSubmatch(t.Version); m != nil {
		v := m[1]
		for _, x := range m[2:] {
			if x == "" {
				x = "0"
			}
			v += "." + x
		}
		hint = "write \"" + v + "\""
	}
	p.Reportf(t, t.PosOf("version"), "version %q is not semantic versioning MAJOR.MINOR.PATCH; %s", t.Version, hint)
}

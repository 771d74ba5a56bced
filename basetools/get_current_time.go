package basetools

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// getCurrentTime implements the tool get_current_time.
type getCurrentTime struct{ now func() time.Time }

var _ GetCurrentTime = (*getCurrentTime)(nil)

// Execute returns now in the zone asked for, a name of the IANA database.
func (t *getCurrentTime) Execute(ctx context.Context, args *GetCurrentTimeArgs) (*GetCurrentTimeResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := args.Timezone
	if name == "" {
		name = "UTC"
	}
	loc, err := loadZone(name)
	if err != nil {
		return nil, GetCurrentTimeInvalidArgs(err.Error())
	}
	now := t.now().In(loc).Round(time.Second)
	_, off := now.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return &GetCurrentTimeResult{
		Time:      now,
		Timezone:  loc.String(),
		UtcOffset: fmt.Sprintf("%s%02d:%02d", sign, off/3600, off%3600/60),
		Unix:      now.Unix(),
		Weekday:   now.Weekday().String(),
	}, nil
}

// loadZone loads an IANA zone, refusing names that are paths.
func loadZone(name string) (*time.Location, error) {
	bad := strings.ContainsAny(name, "\\\x00 ") || strings.HasPrefix(name, "/") || strings.Contains(name, "..")
	if !bad {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("%s is not an IANA time zone name, such as \"Europe/London\" or \"UTC\"", quote(name))
}

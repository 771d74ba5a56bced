// Package hardware holds built-in I2C, SPI and serial tools for agents on
// small boards, themselves declared in a catalog (./catalog) and compiled
// by toolcat.
//
// New binds the tools to a Config: the buses, device addresses and ports
// the host allows, a per-device write rate limit, and the drivers that
// open them (the host's real drivers by default, or a simulated board from
// package hardware/simboard).
package hardware

// The catalog in ./catalog is compiled into the *_gen.go files of this
// package; run "go generate ./hardware" after changing it.
//go:generate go tool toolcat gen ./catalog

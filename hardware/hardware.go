// Package hardware holds built-in I2C, SPI and serial tools, themselves
// declared in a catalog and compiled by toolcat.
//
// The hardware tools are not part of this release yet.
package hardware

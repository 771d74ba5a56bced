// Command hardware-serve serves the hardware tools over MCP on stdin and
// stdout, for an agent client to launch: over the simulated sensor board
// (-sim), or over the host's real serial ports, I2C buses and SPI ports
// named in the allow-list flags.
//
//	hardware-serve -sim
//	hardware-serve -serial /dev/ttyUSB0 -i2c 1=0x76,0x20 -spi 0.0 -rate 2
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/hardware"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

func main() {
	cfg, code := parseFlags(os.Args[1:], os.Stderr)
	if code >= 0 {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := serve(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "hardware-serve:", err)
		os.Exit(1)
	}
}

// parseFlags reads the allow-list; code is -1 to go on, else the exit code.
func parseFlags(args []string, stderr io.Writer) (hardware.Config, int) {
	fs := flag.NewFlagSet("hardware-serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sim := fs.Bool("sim", false, "serve the simulated sensor board instead of real devices")
	var cfg hardware.Config
	fs.Func("serial", "allow a serial port, such as /dev/ttyUSB0 (repeatable)", func(s string) error {
		cfg.SerialPorts = append(cfg.SerialPorts, s)
		return nil
	})
	fs.Func("i2c", "allow an I2C bus and its addresses, as 1=0x76,0x20, or 1 for any address (repeatable)", func(s string) error {
		bus, list, _ := strings.Cut(s, "=")
		if cfg.I2C == nil {
			cfg.I2C = map[string][]uint16{}
		}
		addrs := []uint16{}
		for _, a := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
			v, err := strconv.ParseUint(strings.TrimSpace(a), 0, 16)
			if err != nil {
				return fmt.Errorf("address %q is not a number such as 0x76", a)
			}
			addrs = append(addrs, uint16(v))
		}
		cfg.I2C[bus] = append(cfg.I2C[bus], addrs...)
		return nil
	})
	fs.Func("spi", "allow an SPI port, as bus.cs such as 0.0 (repeatable)", func(s string) error {
		cfg.SPIPorts = append(cfg.SPIPorts, s)
		return nil
	})
	fs.Float64Var(&cfg.WritesPerSecond, "rate", 0, "writes per second to one device (default 5)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	if *sim {
		rate := cfg.WritesPerSecond
		cfg = hardware.NewSimBoard().Config()
		cfg.WritesPerSecond = rate
	} else if len(cfg.SerialPorts) == 0 && len(cfg.I2C) == 0 && len(cfg.SPIPorts) == 0 {
		fmt.Fprintln(stderr, "hardware-serve: nothing allowed: give -sim, or devices with -serial, -i2c and -spi")
		return cfg, 2
	}
	if _, err := hardware.New(cfg); err != nil {
		fmt.Fprintln(stderr, "hardware-serve:", err)
		return cfg, 2
	}
	return cfg, -1
}

func serve(ctx context.Context, cfg hardware.Config) error {
	tools, err := hardware.New(cfg)
	if err != nil {
		return err
	}
	reg, err := hardware.NewRegistry(tools)
	if err != nil {
		return err
	}
	srv := mcpserver.New(reg,
		mcpserver.WithImplementation("toolcat-hardware", "1.0.0"),
		mcpserver.WithInstructions("Tools for the serial ports, I2C buses and SPI ports of this machine. Preview writes with a dry run first; writes to I2C registers can be undone."),
		mcpserver.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))),
		mcpserver.WithSessionOptions(func(string) []runtime.SessionOption {
			return []runtime.SessionOption{runtime.SessionAutonomy(runtime.AutonomySupervised), runtime.SessionUndoTool(true)}
		}),
	)
	return srv.RunStdio(ctx)
}

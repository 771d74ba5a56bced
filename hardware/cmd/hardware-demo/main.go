// Command hardware-demo drives the hardware tools over a simulated sensor
// board (hardware.SimBoard), as an agent host would, and prints each call
// and the envelope the model reads: ports and buses listed, registers
// read, a write previewed, done and undone, a serial command answered, an
// ADC read over SPI, and the allow-list and rate limit refusing calls.
// No wiring and no hardware are needed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toolcat/toolcat/hardware"
	"github.com/toolcat/toolcat/runtime"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hardware-demo:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	ctx := context.Background()
	board := hardware.NewSimBoard()
	cfg := board.Config()
	cfg.WritesPerSecond = 1 // one write a second per device: a looping model is stopped
	tools, err := hardware.New(cfg)
	if err != nil {
		return err
	}
	reg, err := hardware.NewRegistry(tools)
	if err != nil {
		return err
	}
	sess := reg.Session("demo", runtime.SessionAutonomy(runtime.AutonomyFull))
	n := 0
	callTool := func(note, tool, args string, dry bool) {
		n++
		mode := ""
		if dry {
			mode = " (dry run)"
		}
		fmt.Fprintf(out, "== %s\n%s%s %s\n", note, tool, mode, args)
		res := sess.Call(ctx, tool, []byte(args), runtime.CallOptions{DryRun: dry, IdempotencyKey: fmt.Sprintf("demo-%d", n)})
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintf(out, "%s\n\n", b)
	}

	callTool("which serial devices are connected", "list_serial_ports", `{}`, false)
	callTool("what answers on I2C bus 1", "scan_i2c_bus", `{"bus":"1"}`, false)
	callTool("the sensor's chip id (0x60: a BME280)", "read_i2c_register", `{"bus":"1","address":118,"register":208}`, false)
	callTool("preview: all expander pins as outputs", "write_i2c_register", `{"bus":"1","address":32,"register":0,"data":[0]}`, true)
	callTool("do it", "write_i2c_register", `{"bus":"1","address":32,"register":0,"data":[0]}`, false)
	callTool("a second write within the second is refused", "write_i2c_register", `{"bus":"1","address":32,"register":9,"data":[255]}`, false)

	rep, err := sess.Undo(ctx, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "== undo the last write: %d call reverted (%s)\n\n", len(rep.Undone), rep.Undone[0].Tool)
	callTool("the direction register is back to all inputs", "read_i2c_register", `{"bus":"1","address":32,"register":0}`, false)

	callTool("the microcontroller's boot message", "read_serial_port", `{"port":"/dev/ttyUSB0","timeout_ms":200}`, false)
	callTool("ask it for the temperature", "write_serial_port", `{"port":"/dev/ttyUSB0","data":"TEMP?\n"}`, false)
	callTool("its answer", "read_serial_port", `{"port":"/dev/ttyUSB0","timeout_ms":500}`, false)
	callTool("channel 1 of the ADC (1023: full scale)", "transfer_spi", `{"port":"0.0","data":[1,144,0]}`, false)
	callTool("a device outside the allow-list", "read_i2c_register", `{"bus":"1","address":80,"register":0}`, false)
	callTool("an address the schema refuses", "read_i2c_register", `{"bus":"1","address":200,"register":0}`, false)
	return nil
}

package gen_test

import (
	"strings"
	"testing"
)

const respelledCatalog = `package: bus
tools:
  read_i2c_register:
    description: Reads one register of a device on an I2C bus.
    args:
      type: object
      additionalProperties: false
      properties:
        mode: {type: string, enum: [fast, slow]}
    result:
      type: object
      properties:
        value: {type: integer}
    errors:
      not_found: {suggestion: "No such device."}
  transfer_spi:
    description: Sends bytes on an SPI bus and returns those read.
    args: {type: object, additionalProperties: false, properties: {n: {type: integer}}}
`

// respelledUser is code written when toolcat spelled I2C and SPI as words:
// the scaffolded implementations and code naming the Go API.
const respelledUser = `package bus

import "context"

type readI2cRegister struct{}

var _ ReadI2cRegister = (*readI2cRegister)(nil)

func (*readI2cRegister) Execute(ctx context.Context, args *ReadI2cRegisterArgs) (*ReadI2cRegisterResult, error) {
	if args.Mode != nil && *args.Mode == ReadI2cRegisterArgsModeFast {
		return nil, ReadI2cRegisterNotFound("none")
	}
	return &ReadI2cRegisterResult{}, nil
}

type transferSpi struct{}

func (*transferSpi) Execute(ctx context.Context, args *TransferSpiArgs) (any, error) { return nil, nil }

func use() error {
	var _ ReadI2cRegisterArgsMode = ReadI2CRegisterArgsModeSlow
	_, err := NewRegistry(Tools{ReadI2cRegister: &readI2cRegister{}, TransferSpi: &transferSpi{}})
	return err
}
`

// TestRespelledInitialismsKeepOldCodeCompiling: I2C and SPI are
// initialisms now (ReadI2CRegister, TransferSPI), and code written against
// the earlier spelling still compiles through the deprecated aliases.
func TestRespelledInitialismsKeepOldCodeCompiling(t *testing.T) {
	if errs := typeCheck(t, load(t, respelledCatalog), nil, respelledUser); len(errs) > 0 {
		t.Errorf("code of the earlier spelling does not compile:\n%s", strings.Join(errs, "\n"))
	}
	current := strings.NewReplacer("I2c", "I2C", "Spi", "SPI").Replace(respelledUser)
	if errs := typeCheck(t, load(t, respelledCatalog), nil, current); len(errs) > 0 {
		t.Errorf("code of the current spelling does not compile:\n%s", strings.Join(errs, "\n"))
	}
}

package names

import "context"

// echoNamesGeneral returns the arguments it gets, decoded by the general
// validator.
type echoNamesGeneral struct{}

var _ EchoNamesGeneral = (*echoNamesGeneral)(nil)

func (t *echoNamesGeneral) Execute(ctx context.Context, args *EchoNamesGeneralArgs) (EchoNamesGeneralResult, error) {
	return args, nil
}

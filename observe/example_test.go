package observe_test

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc/observe"
)

func ExampleStub() {
	var out strings.Builder
	out.WriteString("============================= test session starts ==============================\n")
	for i := range 40 {
		fmt.Fprintf(&out, "tests/test_units.py::test_convert_%d PASSED\n", i)
	}
	out.WriteString("tests/test_units.py::test_parse_duration FAILED\n")
	out.WriteString("FAILED tests/test_units.py::test_parse_duration - ValueError: unknown unit 'ms'\n")
	out.WriteString("========================= 1 failed, 40 passed in 0.42s =========================\n")
	o := observe.Observation{Tool: "execute_bash", Arguments: `{"command": "pytest -v tests/test_units.py"}`, Output: out.String()}

	known := map[string]bool{"tests/test_units.py": true} // the call named it
	fmt.Println(observe.Stub(o, observe.StubOptions{
		Handle:    observe.Handle("call_7", o.Output),
		MaxTokens: 80,
		Known:     func(id string) bool { return known[id] },
	}))
	// Output:
	// [swc:h48952b621f execute_bash(pytest -v tests/test_units.py) → 1 failed, 40 passed]
	// […40 lines]
	// tests/test_units.py::test_convert_39 PASSED
	// tests/test_units.py::test_parse_duration FAILED
	// FAILED tests/test_units.py::test_parse_duration - ValueError: unknown unit 'ms'
	// […1 line]
}

package space

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// grammar is what ParseConstraint accepts, for error messages.
const grammar = "numbers, quoted strings, True and False, parameter names, + - * / // %, comparisons (== != < <= > >=, chained), and, or, not, parentheses"

// ParseConstraint reads a Kernel Tuner restriction, a Python expression such as
// "use_padding==0 or block_size_x % 32 != 0" or "32 <= block_size_x * block_size_y <= 1024",
// into a constraint that reads exactly the names it mentions (in order of first mention).
//
// It evaluates as Python does: / is true division, // and % floor toward minus infinity, and
// and or return an operand, comparisons chain. What Python would raise on (a division by zero,
// a string ordered against a number or computed with one) makes the constraint fail. Anything
// outside the grammar is an error that says where.
func ParseConstraint(expr string) (Constraint, error) {
	return parseConstraint(expr, nil)
}

// parseConstraint is ParseConstraint where the names in decode hold codes of other values (a
// float or string parameter's LabelCode): decode gives the value a code stands for.
func parseConstraint(expr string, decode map[string]func(int) value) (Constraint, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return Constraint{}, fmt.Errorf("constraint %q: %w", expr, err)
	}
	p := &parser{expr: expr, toks: toks, pos: map[string]int{}, decode: decode}
	root, err := p.parse()
	if err != nil {
		return Constraint{}, fmt.Errorf("constraint %q: %w", expr, err)
	}
	return Constraint{
		Name:  strings.TrimSpace(expr),
		Reads: p.reads,
		Fn: func(v []int) bool {
			x, ok := root(v)
			return ok && x.truthy()
		},
		Explain: func(v []int) string {
			if _, ok := root(v); !ok {
				return "Python would raise an error: it divides by zero, or mixes a string with a number"
			}
			return "the expression is false"
		},
	}, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tInt
	tFloat
	tStr
	tName
	tOp
)

type token struct {
	kind tokKind
	text string // a string literal's value, else the source text
	col  int    // 1-based column
	n    int64
	f    float64
}

func tokenize(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("column %d: the string is not closed", i+1)
			}
			text := s[i+1 : i+1+end]
			if strings.ContainsRune(text, '\\') {
				return nil, fmt.Errorf("column %d: a string with a backslash is not supported", i+1)
			}
			out = append(out, token{kind: tStr, text: text, col: i + 1})
			i += end + 2
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
				j++
			}
			if j < len(s) && (s[j] == 'x' || s[j] == 'X' || s[j] == 'o' || s[j] == 'O' || s[j] == 'b' || s[j] == 'B' || s[j] == 'j' || s[j] == 'J') {
				return nil, fmt.Errorf("column %d: only decimal number literals are supported; the expression may use %s", i+1, grammar)
			}
			if j < len(s) && (s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
				if s[j] == '.' {
					for j++; j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '_'); j++ {
					}
				}
				if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
					j++
					if j < len(s) && (s[j] == '+' || s[j] == '-') {
						j++
					}
					for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
					}
				}
				f, err := strconv.ParseFloat(strings.ReplaceAll(s[i:j], "_", ""), 64)
				if err != nil {
					return nil, fmt.Errorf("column %d: %s is not a number", i+1, s[i:j])
				}
				out = append(out, token{kind: tFloat, text: s[i:j], col: i + 1, f: f})
				i = j
				continue
			}
			n, err := strconv.ParseInt(strings.ReplaceAll(s[i:j], "_", ""), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("column %d: integer %s is out of range", i+1, s[i:j])
			}
			out = append(out, token{kind: tInt, text: s[i:j], col: i + 1, n: n})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			word := s[i:j]
			switch word {
			case "and", "or", "not":
				out = append(out, token{kind: tOp, text: word, col: i + 1})
			case "True", "False":
				// Python's bool is an int (True == 1, True + 1 == 2), and smart holds a boolean
				// parameter as 0 or 1, so the literals are those integers.
				out = append(out, token{kind: tInt, text: word, col: i + 1, n: int64(boolInt(word == "True"))})
			case "in", "is", "if", "else", "lambda", "None":
				return nil, fmt.Errorf("column %d: %q is not supported; the expression may use %s", i+1, word, grammar)
			default:
				out = append(out, token{kind: tName, text: word, col: i + 1})
			}
			i = j
		default:
			op := ""
			for _, o := range []string{"//", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "(", ")"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" || strings.HasPrefix(s[i:], "**") {
				end := i + 1
				if strings.HasPrefix(s[i:], "**") {
					end = i + 2
				}
				return nil, fmt.Errorf("column %d: %q is not supported; the expression may use %s", i+1, s[i:end], grammar)
			}
			out = append(out, token{kind: tOp, text: op, col: i + 1})
			i += len(op)
		}
	}
	return append(out, token{kind: tEOF, col: len(s) + 1}), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// value is a Python int, float or str.
type value struct {
	i     int64
	f     float64
	s     string
	float bool
	str   bool
}

func (v value) truthy() bool {
	switch {
	case v.str:
		return v.s != ""
	case v.float:
		return v.f != 0
	}
	return v.i != 0
}

func (v value) asFloat() float64 {
	if v.float {
		return v.f
	}
	return float64(v.i)
}

func boolean(b bool) value {
	if b {
		return value{i: 1}
	}
	return value{}
}

// node evaluates a subexpression over the values of the names read; false means a division by
// zero.
type node func(v []int) (value, bool)

type parser struct {
	expr   string
	toks   []token
	at     int
	reads  []string
	pos    map[string]int
	decode map[string]func(int) value
}

func (p *parser) peek() token { return p.toks[p.at] }

func (p *parser) next() token {
	t := p.toks[p.at]
	if t.kind != tEOF {
		p.at++
	}
	return t
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == text
}

func (p *parser) parse() (node, error) {
	if p.peek().kind == tEOF {
		return nil, fmt.Errorf("the expression is empty; write a condition such as \"x * y <= 1024\"")
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, fmt.Errorf("column %d: unexpected %q after a complete expression", t.col, t.text)
	}
	return n, nil
}

func (p *parser) or() (node, error) {
	l, err := p.and()
	for err == nil && p.is("or") {
		p.next()
		var r node
		if r, err = p.and(); err == nil {
			a := l
			l = func(v []int) (value, bool) {
				x, ok := a(v)
				if !ok || x.truthy() {
					return x, ok
				}
				return r(v)
			}
		}
	}
	return l, err
}

func (p *parser) and() (node, error) {
	l, err := p.not()
	for err == nil && p.is("and") {
		p.next()
		var r node
		if r, err = p.not(); err == nil {
			a := l
			l = func(v []int) (value, bool) {
				x, ok := a(v)
				if !ok || !x.truthy() {
					return x, ok
				}
				return r(v)
			}
		}
	}
	return l, err
}

func (p *parser) not() (node, error) {
	if !p.is("not") {
		return p.comparison()
	}
	p.next()
	x, err := p.not()
	if err != nil {
		return nil, err
	}
	return func(v []int) (value, bool) {
		a, ok := x(v)
		return boolean(!a.truthy()), ok
	}, nil
}

// comparisons answer false where Python raises: a string ordered against a number.
var comparisons = map[string]func(a, b value) (bool, bool){
	"<":  func(a, b value) (bool, bool) { return order(a, b, func(c int) bool { return c < 0 }) },
	"<=": func(a, b value) (bool, bool) { return order(a, b, func(c int) bool { return c <= 0 }) },
	">":  func(a, b value) (bool, bool) { return order(a, b, func(c int) bool { return c > 0 }) },
	">=": func(a, b value) (bool, bool) { return order(a, b, func(c int) bool { return c >= 0 }) },
	"==": func(a, b value) (bool, bool) { return a.str == b.str && cmp(a, b) == 0, true },
	"!=": func(a, b value) (bool, bool) { return a.str != b.str || cmp(a, b) != 0, true },
}

func order(a, b value, holds func(int) bool) (bool, bool) {
	if a.str != b.str {
		return false, false
	}
	return holds(cmp(a, b)), true
}

// cmp compares two numbers or two strings (by code point, as Python does).
func cmp(a, b value) int {
	if a.str {
		return strings.Compare(a.s, b.s)
	}
	if a.float || b.float {
		x, y := a.asFloat(), b.asFloat()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// comparison parses a chain a op1 b op2 c ...: Python's (a op1 b) and (b op2 c), each operand
// evaluated once.
func (p *parser) comparison() (node, error) {
	first, err := p.arith()
	if err != nil {
		return nil, err
	}
	var ops []func(a, b value) (bool, bool)
	operands := []node{first}
	for p.peek().kind == tOp && comparisons[p.peek().text] != nil {
		ops = append(ops, comparisons[p.next().text])
		r, err := p.arith()
		if err != nil {
			return nil, err
		}
		operands = append(operands, r)
	}
	if len(ops) == 0 {
		return first, nil
	}
	return func(v []int) (value, bool) {
		a, ok := operands[0](v)
		if !ok {
			return a, false
		}
		for i, op := range ops {
			b, ok := operands[i+1](v)
			if !ok {
				return b, false
			}
			holds, ok := op(a, b)
			if !ok {
				return b, false
			}
			if !holds {
				return boolean(false), true
			}
			a = b
		}
		return boolean(true), true
	}, nil
}

func (p *parser) arith() (node, error) {
	l, err := p.term()
	for err == nil && (p.is("+") || p.is("-")) {
		op := p.next().text
		var r node
		if r, err = p.term(); err == nil {
			l = binary(l, r, op)
		}
	}
	return l, err
}

func (p *parser) term() (node, error) {
	l, err := p.factor()
	for err == nil && (p.is("*") || p.is("/") || p.is("//") || p.is("%")) {
		op := p.next().text
		var r node
		if r, err = p.factor(); err == nil {
			l = binary(l, r, op)
		}
	}
	return l, err
}

func (p *parser) factor() (node, error) {
	if p.is("-") || p.is("+") {
		op := p.next().text
		x, err := p.factor()
		if err != nil {
			return nil, err
		}
		if op == "+" {
			return x, nil
		}
		return func(v []int) (value, bool) {
			a, ok := x(v)
			switch {
			case a.str:
				return a, false
			case a.float:
				return value{f: -a.f, float: true}, ok
			}
			return value{i: -a.i}, ok
		}, nil
	}
	return p.atom()
}

func (p *parser) atom() (node, error) {
	t := p.next()
	switch {
	case t.kind == tInt || t.kind == tFloat || t.kind == tStr:
		c := map[tokKind]value{tInt: {i: t.n}, tFloat: {f: t.f, float: true}, tStr: {s: t.text, str: true}}[t.kind]
		return func([]int) (value, bool) { return c, true }, nil
	case t.kind == tName:
		i, ok := p.pos[t.text]
		if !ok {
			i = len(p.reads)
			p.pos[t.text] = i
			p.reads = append(p.reads, t.text)
		}
		if decode := p.decode[t.text]; decode != nil {
			return func(v []int) (value, bool) { return decode(v[i]), true }, nil
		}
		return func(v []int) (value, bool) { return value{i: int64(v[i])}, true }, nil
	case t.kind == tOp && t.text == "(":
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tOp || c.text != ")" {
			return nil, fmt.Errorf("column %d: expected \")\" to close the \"(\" at column %d", c.col, t.col)
		}
		return x, nil
	case t.kind == tEOF:
		return nil, fmt.Errorf("column %d: the expression ends where an operand is expected", t.col)
	}
	return nil, fmt.Errorf("column %d: unexpected %q where an operand (number, string, name or parenthesis) is expected", t.col, t.text)
}

// binary builds an arithmetic node with Python semantics.
func binary(l, r node, op string) node {
	return func(v []int) (value, bool) {
		a, ok := l(v)
		if !ok {
			return a, false
		}
		b, ok := r(v)
		if !ok {
			return b, false
		}
		if a.str || b.str {
			// Python joins two strings with + and repeats one times an int; anything else with a
			// string raises.
			switch {
			case a.str && b.str && op == "+":
				return value{s: a.s + b.s, str: true}, true
			case op == "*" && a.str && !b.str && !b.float:
				return repeat(a.s, b.i)
			case op == "*" && b.str && !a.str && !a.float:
				return repeat(b.s, a.i)
			}
			return value{}, false
		}
		if op == "/" || a.float || b.float {
			return floatOp(a.asFloat(), b.asFloat(), op)
		}
		x, y := a.i, b.i
		switch op {
		case "+":
			return value{i: x + y}, true
		case "-":
			return value{i: x - y}, true
		case "*":
			return value{i: x * y}, true
		case "//":
			if y == 0 {
				return value{}, false
			}
			q := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				q--
			}
			return value{i: q}, true
		default: // "%"
			if y == 0 {
				return value{}, false
			}
			m := x % y
			if m != 0 && (m < 0) != (y < 0) {
				m += y
			}
			return value{i: m}, true
		}
	}
}

// repeat is Python's s * n, refused where the string would pass a megabyte.
func repeat(s string, n int64) (value, bool) {
	if n <= 0 {
		return value{str: true}, true
	}
	if n*int64(len(s)) > 1<<20 {
		return value{}, false
	}
	return value{s: strings.Repeat(s, int(n)), str: true}, true
}

func floatOp(x, y float64, op string) (value, bool) {
	var f float64
	switch op {
	case "+":
		f = x + y
	case "-":
		f = x - y
	case "*":
		f = x * y
	case "/":
		if y == 0 {
			return value{}, false
		}
		f = x / y
	case "//":
		if y == 0 {
			return value{}, false
		}
		f = math.Floor(x / y)
	default: // "%"
		if y == 0 {
			return value{}, false
		}
		f = x - y*math.Floor(x/y)
	}
	return value{f: f, float: true}, true
}

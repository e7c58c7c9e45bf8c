// Package intmath holds the integer arithmetic several packages share.
package intmath

// CeilDiv is a/b rounded up, for a >= 0 and b > 0: how many blocks of b cover a.
func CeilDiv(a, b int) int { return (a + b - 1) / b }

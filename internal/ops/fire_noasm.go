//go:build !amd64 || purego

package ops

// FIRE's kernel in Go, lane by lane (fire_lanes.go): the amd64 assembly's bits.

func fireChunks[F, O Float](out []O, stride int, ar []F, bn F, w1, b1, w2, b2 []F, nc, nh int) {
	fireChunksLanes(out, stride, ar, bn, w1, b1, w2, b2, nc, nh)
}

func fireGradChunks[F Float](acc, g []F, gs int, a, dA []F, bn, dBdc, kfac F, w1, b1, w2 []F, H, nc int) {
	fireGradChunksLanes(acc, g, gs, a, dA, bn, dBdc, kfac, w1, b1, w2, H, nc)
}

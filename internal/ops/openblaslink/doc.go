// Package openblaslink links OpenBLAS (-lopenblas) into builds with the openblas tag; without
// the tag it is empty.
package openblaslink

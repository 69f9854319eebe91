//go:build !unix

package inputfile

// nonBlock is nothing where opening a file cannot wait for a writer.
const nonBlock = 0

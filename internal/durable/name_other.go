//go:build !linux

package durable

// NameMax is the longest file name a file system allows, in bytes: 255 on those tablegate
// meets (APFS, NTFS in UTF-16 units, ext4, XFS).
func NameMax(string) int { return defaultNameMax }

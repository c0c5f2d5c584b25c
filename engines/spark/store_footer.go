package spark

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// remoteFooterTypes is the footer check of an input this process cannot open (s3a://, hdfs://):
// Spark lists the input's Parquet files (reading no content), then returns the end of the first
// one, in name order (dialect.Source), whose footer is parsed and checked here. It costs one
// file's read, whatever the input's size; Spark reads the other files with the same schema.
func remoteFooterTypes(file string, size int64, tail []byte, cols []*schema.Column) error {
	footer, err := parquetFooter(tail, size)
	if err != nil {
		return fmt.Errorf("read the Parquet footer of %s: %w", file, err)
	}
	md, err := metadata.NewFileMetaData(footer, nil)
	if err != nil {
		return fmt.Errorf("read the Parquet footer of %s: %w", file, err)
	}
	return footerTypes(file, md.Schema, cols)
}

// parquetFooter cuts the footer out of the last bytes of a Parquet file of size bytes: the footer,
// its length (4 bytes, little-endian) and the magic PAR1.
func parquetFooter(end []byte, size int64) ([]byte, error) {
	if len(end) < 8 || string(end[len(end)-4:]) != "PAR1" {
		if len(end) >= 4 && string(end[len(end)-4:]) == "PARE" {
			return nil, errors.New("its footer is encrypted")
		}
		return nil, errors.New("not a Parquet file (no PAR1 at its end)")
	}
	n := int64(binary.LittleEndian.Uint32(end[len(end)-8:]))
	if n+12 > size {
		return nil, fmt.Errorf("its footer length %d does not fit its size %d", n, size)
	}
	if n+8 > int64(len(end)) {
		return nil, dialect.ErrShortTail
	}
	return end[int64(len(end))-8-n : len(end)-8], nil
}

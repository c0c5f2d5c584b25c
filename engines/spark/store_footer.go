package spark

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// footerTail is how much of a file's end the first read fetches: most footers fit.
const footerTail = 64 << 10

// remoteFooterTypes is the footer check of an input this process cannot open (s3a://, hdfs://),
// done through Spark: Spark lists the input's Parquet files (reading no content), then returns
// the end of the first one, in name order, whose footer is parsed here. It costs one file's
// read, whatever the input's size; Spark reads the other files with the same schema.
func remoteFooterTypes(ctx context.Context, s Session, input string, cols []*schema.Column) error {
	const view = "__tg_footer_files"
	if err := s.Exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW %s USING binaryFile OPTIONS (path %s, pathGlobFilter '*.parquet')",
		view, dialect.String(input))); err != nil {
		return fmt.Errorf("list the input's Parquet files: %w", err)
	}
	defer func() { _ = s.Exec(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+view) }()
	rows, err := s.Rows(ctx, fmt.Sprintf("SELECT path, length FROM %s ORDER BY path LIMIT 1", view))
	if err != nil {
		return fmt.Errorf("list the input's Parquet files: %w", err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s holds no .parquet files", input)
	}
	path, _ := rows[0][0].(string)
	size, _ := rows[0][1].(int64)
	// The filter on path is applied before Spark reads any content: only this file is read.
	tail := func(n int64) ([]byte, error) {
		rows, err := s.Rows(ctx, fmt.Sprintf("SELECT hex(substring(content, %d)) FROM %s WHERE path = %s", size-n+1, view, dialect.String(path)))
		if err != nil {
			return nil, fmt.Errorf("read the Parquet footer of %s: %w", path, err)
		}
		if len(rows) != 1 {
			return nil, fmt.Errorf("read the Parquet footer of %s: Spark returned %d rows", path, len(rows))
		}
		text, _ := rows[0][0].(string)
		return hex.DecodeString(text)
	}
	n := min(size, footerTail)
	end, err := tail(n)
	if err != nil {
		return err
	}
	footer, err := parquetFooter(end, size)
	if errors.Is(err, errShortTail) {
		if end, err = tail(size); err == nil {
			footer, err = parquetFooter(end, size)
		}
	}
	if err != nil {
		return fmt.Errorf("read the Parquet footer of %s: %w", path, err)
	}
	md, err := metadata.NewFileMetaData(footer, nil)
	if err != nil {
		return fmt.Errorf("read the Parquet footer of %s: %w", path, err)
	}
	return footerTypes(path, md.Schema, cols)
}

var errShortTail = errors.New("the footer is longer than the bytes read")

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
		return nil, errShortTail
	}
	return end[int64(len(end))-8-n : len(end)-8], nil
}

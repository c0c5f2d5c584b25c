package compile

import "github.com/tablegate/tablegate/sql"

// Attach is the statement that attaches the database file path (absolute) as alias, for reading
// only unless write.
func Attach(path, alias string, write bool) string {
	stmt := "ATTACH " + sql.String(path) + " AS " + sql.Ident(alias)
	if !write {
		stmt += " (READ_ONLY)"
	}
	return stmt
}

// Detach is the statement that detaches the database attached as alias.
func Detach(alias string) string { return "DETACH DATABASE " + sql.Ident(alias) }

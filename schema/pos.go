package schema

// Pos is where the rule was declared in a file (zero for rules built in Go).
func (r *Rule) Pos() Pos { return r.pos }

// Pos is where the column was declared in a file (zero for columns built in Go).
func (c *Column) Pos() Pos { return c.pos }

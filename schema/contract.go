package schema

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Contract names the data contract a schema was imported from (tablegate import --odcs), so that
// a run's report can name it and a catalog can match each check to the contract's quality
// entries.
type Contract struct {
	ID, Name, Version, APIVersion string
	// Object is the contract's schema object the schema checks.
	Object string
	// Quality ties rules and table checks to the contract's quality entries.
	Quality []ContractQuality
}

// ContractQuality ties a rule (amount|nullability, a schema rule's name) or, with Table, a table
// check (its name) to the id and name of a contract quality entry.
type ContractQuality struct {
	Rule  string
	Table bool
	ID    string
	Name  string
}

func (c *Contract) clone() *Contract {
	if c == nil {
		return nil
	}
	cp := *c
	cp.Quality = slices.Clone(c.Quality)
	return &cp
}

var contractKeys = []string{"id", "name", "version", "api_version", "object", "quality"}

// contract reads the `contract` key: {id, name, version, api_version, object, quality: [{rule |
// table_check, id, name}]}.
func (l *loader) contract(n *yaml.Node) *Contract {
	if n.Kind != yaml.MappingNode {
		l.bad(n, "", "contract", "contract is a mapping (id, name, version, api_version, object, quality); got %s", kindOf(n))
		return nil
	}
	c := &Contract{}
	for _, kv := range pairs(n) {
		key, val := kv[0], kv[1]
		switch key.Value {
		case "id":
			c.ID = l.str(val, "", "contract.id")
		case "name":
			c.Name = l.str(val, "", "contract.name")
		case "version":
			c.Version = l.str(val, "", "contract.version")
		case "api_version":
			c.APIVersion = l.str(val, "", "contract.api_version")
		case "object":
			c.Object = l.str(val, "", "contract.object")
		case "quality":
			if val.Kind != yaml.SequenceNode {
				l.bad(val, "", "contract.quality", "contract.quality is a list of {rule or table_check, id, name}; got %s", kindOf(val))
				continue
			}
			for _, item := range val.Content {
				if q, ok := l.contractQuality(item); ok {
					c.Quality = append(c.Quality, q)
				}
			}
		default:
			l.bad(key, "", "contract."+excerpt(key.Value), "unknown key '%s'; a contract has %s", excerpt(key.Value), strings.Join(contractKeys, ", "))
		}
	}
	return c
}

func (l *loader) contractQuality(n *yaml.Node) (ContractQuality, bool) {
	var q ContractQuality
	if n.Kind != yaml.MappingNode {
		l.bad(n, "", "contract.quality", "a contract.quality entry is a mapping {rule or table_check, id, name}; got %s", kindOf(n))
		return q, false
	}
	for _, kv := range pairs(n) {
		key, val := kv[0], kv[1]
		switch key.Value {
		case "rule":
			q.Rule = l.str(val, "", "contract.quality.rule")
		case "table_check":
			q.Rule, q.Table = l.str(val, "", "contract.quality.table_check"), true
		case "id":
			q.ID = l.str(val, "", "contract.quality.id")
		case "name":
			q.Name = l.str(val, "", "contract.quality.name")
		default:
			l.bad(key, "", "contract.quality."+excerpt(key.Value), "unknown key '%s'; an entry has rule or table_check, id, name", excerpt(key.Value))
		}
	}
	if q.Rule == "" {
		l.bad(n, "", "contract.quality", "the entry names neither a rule nor a table_check")
		return q, false
	}
	return q, true
}

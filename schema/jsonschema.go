package schema

// JSONSchemaURL is where the JSON Schema of schema files is published: the repository's
// schema/tablegate.schema.json, which editors fetch to check and complete keys as people type.
const JSONSchemaURL = "https://raw.githubusercontent.com/tablegate/tablegate/main/schema/tablegate.schema.json"

// LanguageServerLine is the comment that points editors at JSONSchemaURL (yaml-language-server:
// VS Code's YAML extension, JetBrains IDEs, Neovim, Helix…); tablegate init writes it first.
const LanguageServerLine = "# yaml-language-server: $schema=" + JSONSchemaURL

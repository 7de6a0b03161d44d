module github.com/cturi/cturi

go 1.26

require github.com/stretchr/testify v1.12.1

require (
	github.com/emersion/go-message v0.18.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

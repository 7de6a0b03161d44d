module github.com/cturi/cturi

go 1.26

require (
	github.com/gorilla/handlers v1.5.2
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/felixge/httpsnoop v1.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

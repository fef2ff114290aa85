// The real node's pause program: the process that holds a pod's namespaces. Standard library only.
module cellar.dev/realnode/pause

go 1.24.0

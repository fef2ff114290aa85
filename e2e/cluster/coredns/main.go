// CoreDNS for both clusters' nodes, one build: the local cluster's real node (its Corefile, in
// e2e/realnode/node.sh, uses bind, kubernetes, template and a few more: every name outside the
// cluster domain is NXDOMAIN, nothing is forwarded) and kind's nodes (e2e/kind: the Corefile
// kubeadm writes, with errors, health, ready, kubernetes, prometheus, forward, cache, loop,
// reload and loadbalance). A Corefile that names no plugin leaves it out of the chain.
package main

import (
	"github.com/coredns/coredns/coremain"

	// The plugins register themselves; dnsserver's directive list orders them.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/template"
)

func main() { coremain.Run() }

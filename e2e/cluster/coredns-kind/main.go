// CoreDNS for the kind cluster (e2e/kind), with the plugins of the Corefile kubeadm writes:
// errors, health, ready, kubernetes, prometheus, forward, cache, loop, reload, loadbalance.
package main

import (
	"github.com/coredns/coredns/coremain"

	// The plugins register themselves; dnsserver's directive list orders them.
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
)

func main() { coremain.Run() }

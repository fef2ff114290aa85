// CoreDNS for the local cluster's real node, with only the plugins its Corefile uses: the
// kubernetes plugin answers for the cluster domain from the API server; nothing is forwarded
// anywhere else (the local cluster reaches no network beyond this machine).
package main

import (
	"github.com/coredns/coredns/coremain"

	// The plugins register themselves; dnsserver's directive list orders them.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/template"
)

func main() { coremain.Run() }

# shellcheck shell=bash
# pki and APISERVER_PORT come from the sourcing script (cluster.sh, ports):
# shellcheck disable=SC2154
# Certificates and kubeconfigs shared by e2e/local-cluster and e2e/realnode/node.sh (through
# cluster.sh). One CA (created by local-cluster) signs the API server's serving certificate and the
# client certificate of every user of it. Keys are PKCS#8: RSA where any client may read them (the
# JDK without BouncyCastle too), ECDSA P-256 where only Go programs do, as those take milliseconds
# to make where RSA takes a quarter of a second each. The certificates' extensions: openssl.cnf.
#
# The CAs are in $pki; new keys and certificates go to $certs (default: $pki).

pki_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# openssl with openssl.cnf, which names ${ENV::SERVICE_IP} (the API server's certificate, made by
# local-cluster, which sets it): OpenSSL refuses to read the file at all while that is unset.
openssl_() { SERVICE_IP=${SERVICE_IP-} openssl "$@"; }

newkey() { # newkey FILE [rsa|ec]
  if [ "${2:-ec}" = rsa ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null
  else
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
  fi
}

# ca NAME SUBJECT [KEYTYPE]: a self-signed CA in $pki (default key: rsa).
ca() {
  newkey "$pki/$1.key" "${3:-rsa}"
  openssl_ req -x509 -new -key "$pki/$1.key" -subj "$2" -days 3650 -sha256 \
    -config "$pki_lib/openssl.cnf" -extensions ca -out "$pki/$1.crt" 2>/dev/null
}

# cert NAME SUBJECT [SECTION [CA [KEYTYPE]]]: a key and a certificate in $certs with the
# extensions of openssl.cnf's SECTION, signed by $pki/CA (defaults: client, ca, ec).
cert() {
  local name=$1 subject=$2 section=${3:-client} ca=${4:-ca} out=${certs:-$pki}
  newkey "$out/$name.key" "${5:-ec}"
  openssl_ req -new -key "$out/$name.key" -subj "$subject" -out "$out/$name.csr" \
    -config "$pki_lib/openssl.cnf" 2>/dev/null
  openssl_ x509 -req -in "$out/$name.csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 3650 -sha256 \
    -extfile "$pki_lib/openssl.cnf" -extensions "$section" -out "$out/$name.crt" 2>/dev/null
  rm -f "$out/$name.csr"
}

# write_kubeconfig FILE NAME: a kubeconfig for the user NAME (its certificate in $certs), with the
# credentials inlined, so the file can be copied anywhere. (render reads the locals by name.)
# shellcheck disable=SC2034
write_kubeconfig() {
  local file=$1 out=${certs:-$pki} SERVER CA_DATA CLIENT CERT_DATA KEY_DATA
  SERVER=https://127.0.0.1:$APISERVER_PORT
  CA_DATA=$(base64 -w0 <"$pki/ca.crt")
  CLIENT=$2
  CERT_DATA=$(base64 -w0 <"$out/$2.crt")
  KEY_DATA=$(base64 -w0 <"$out/$2.key")
  render "$pki_lib/kubeconfig.yaml" SERVER CA_DATA CLIENT CERT_DATA KEY_DATA >"$file"
  chmod 600 "$file"
}

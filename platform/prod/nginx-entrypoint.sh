#!/bin/sh
# Render the config, then run nginx in the foreground. From the environment:
#   NGINX_LISTEN        address:port of HTTPS (the URL to open)
#   NGINX_HTTP_LISTEN   address:port of plain HTTP, which only redirects to HTTPS
#   NGINX_PUBLIC_HTTPS_PORT  the HTTPS port clients see (the redirect's; default NGINX_LISTEN's)
#   NGINX_TLS_CERT, NGINX_TLS_KEY  the certificate (chain) and its key, mounted read-only
#   NGINX_UPSTREAMS     space-separated address:port of the web processes
#   NGINX_PINNED        optional space-separated listen=upstream pairs: HTTPS servers that each
#                       reach one web process (to watch or test one process through TLS)
#   NGINX_TEMPLATE, NGINX_CONF, NGINX_PID  where the template, the rendered config and the pid
#                       file are (the image's defaults; tests/test_proxy_tls.py runs it on a host)
set -eu
: "${NGINX_LISTEN:=127.0.0.1:8443}" "${NGINX_HTTP_LISTEN:=127.0.0.1:8080}"
: "${NGINX_UPSTREAMS:=127.0.0.1:8000}" "${NGINX_PINNED:=}"
: "${NGINX_TLS_CERT:=/etc/nginx/tls/cert.pem}" "${NGINX_TLS_KEY:=/etc/nginx/tls/key.pem}"
: "${NGINX_PUBLIC_HTTPS_PORT:=${NGINX_LISTEN##*:}}"
: "${NGINX_TEMPLATE:=/etc/nginx/onsite.conf.template}" "${NGINX_CONF:=/etc/nginx/nginx.conf}"
: "${NGINX_PID:=/run/nginx.pid}"
for file in "$NGINX_TLS_CERT" "$NGINX_TLS_KEY"; do
  [ -r "$file" ] || { echo "nginx: no TLS file at $file (NGINX_TLS_CERT / NGINX_TLS_KEY)" >&2; exit 1; }
done
servers=""
for upstream in $NGINX_UPSTREAMS; do
  servers="$servers    server $upstream max_fails=3 fail_timeout=10s;
"
done
pinned=""
for pair in $NGINX_PINNED; do
  pinned="$pinned
  server {
    listen ${pair%%=*} ssl;
    location / { proxy_pass http://${pair#*=}; }
  }
"
done
suffix=":$NGINX_PUBLIC_HTTPS_PORT"
[ "$NGINX_PUBLIC_HTTPS_PORT" = 443 ] && suffix=""
export NGINX_LISTEN NGINX_HTTP_LISTEN NGINX_TLS_CERT NGINX_TLS_KEY NGINX_PID NGINX_SERVERS="$servers"
export NGINX_PINNED_SERVERS="$pinned" NGINX_HTTPS_PORT_SUFFIX="$suffix"
envsubst '$NGINX_LISTEN $NGINX_HTTP_LISTEN $NGINX_TLS_CERT $NGINX_TLS_KEY $NGINX_PID $NGINX_SERVERS $NGINX_PINNED_SERVERS $NGINX_HTTPS_PORT_SUFFIX' \
  < "$NGINX_TEMPLATE" > "$NGINX_CONF"
/usr/sbin/nginx -t -q -c "$NGINX_CONF"
exec /usr/sbin/nginx -c "$NGINX_CONF" -g 'daemon off;'

#!/bin/sh
# Render the config from NGINX_LISTEN (address:port) and NGINX_UPSTREAMS (space-separated
# address:port of the web processes), then run nginx in the foreground.
set -eu
: "${NGINX_LISTEN:=127.0.0.1:8080}" "${NGINX_UPSTREAMS:=127.0.0.1:8000}"
servers=""
for upstream in $NGINX_UPSTREAMS; do
  servers="$servers    server $upstream max_fails=3 fail_timeout=10s;
"
done
export NGINX_LISTEN NGINX_SERVERS="$servers"
envsubst '$NGINX_LISTEN $NGINX_SERVERS' < /etc/nginx/onsite.conf.template > /etc/nginx/nginx.conf
/usr/sbin/nginx -t -q
exec /usr/sbin/nginx -g 'daemon off;'

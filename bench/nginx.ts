/**
 * Debian's nginx as a reverse proxy for the benches: the cheapest HTTP door we know, measured in the same rounds as
 * the gateway (`bench/proxy`, `bench/gateway/deployed-reads`). One worker per `workers`, keep-alive connections to the
 * upstream, no access log, no cache: it forwards every request.
 */
export function nginxConfig(opts: { dir: string; port: number; upstreamPort: number; workers: number }): string {
  const { dir, port, upstreamPort, workers } = opts;
  return `
worker_processes ${workers};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream node { server 127.0.0.1:${upstreamPort}; keepalive 256; }
  server {
    listen 127.0.0.1:${port} reuseport;
    location / {
      proxy_pass http://node;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`;
}

"""tests/fleet/chserver.py: a throwaway ClickHouse server for the fleet tier.

Debian 12's clickhouse-server 18.16 (and newer ones) started on loopback with
its own data folder and free ports, from a minimal config.xml and users.xml
written into that folder: user `default` without a password and user `sprof`
with password `secret`, user `agent` with password `agentpw` (queries
are logged in system.query_log, so a test can see what a user ran), and a two-shard loopback cluster
`test_cluster_two_shards_localhost` (both shards this same server) for a
Distributed table, and `test_cluster_dead_shard` whose second shard is a
port nothing listens on (a shard that is down); add_cluster names other
servers (a cluster of two real servers). Given certificates from
make_certs (a CA of the test's own, made with openssl), it also serves HTTPS
and wants a client certificate. `python3 chserver.py DIR` runs one in the foreground for
trying things by hand.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

CONFIG = """<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>{d}/server.log</log><errorlog>{d}/server.err.log</errorlog>
        <console>0</console></logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>{http}</http_port>{tls}
    <tcp_port>{tcp}</tcp_port>
    <interserver_http_port>{inter}</interserver_http_port>
    <path>{d}/data/</path>
    <tmp_path>{d}/tmp/</tmp_path>
    <user_files_path>{d}/user_files/</user_files_path>
    <format_schema_path>{d}/format_schemas/</format_schema_path>
    <users_config>{d}/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mark_cache_size>5368709120</mark_cache_size>
    <mlock_executable>false</mlock_executable>
    <query_log><database>system</database><table>query_log</table>
        <flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>
    <remote_servers>
        <test_cluster_two_shards_localhost>
            <shard><replica><host>127.0.0.1</host><port>{tcp}</port></replica></shard>
            <shard><replica><host>localhost</host><port>{tcp}</port></replica></shard>
        </test_cluster_two_shards_localhost>
        <test_cluster_dead_shard>
            <shard><replica><host>127.0.0.1</host><port>{tcp}</port></replica></shard>
            <shard><replica><host>127.0.0.1</host><port>{dead}</port></replica></shard>
        </test_cluster_dead_shard>
    </remote_servers>
</yandex>
"""

USERS = """<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>2000000000</max_memory_usage><log_queries>1</log_queries></default></profiles>
    <users>
        <default><password></password><networks><ip>::/0</ip></networks>
            <profile>default</profile><quota>default</quota></default>
        <sprof><password>secret</password><networks><ip>::/0</ip></networks>
            <profile>default</profile><quota>default</quota></sprof>
        <agent><password>agentpw</password><networks><ip>::/0</ip></networks>
            <profile>default</profile><quota>default</quota></agent>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
    </interval></default></quotas>
</yandex>
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def server_binary():
    for cand in ("clickhouse-server", "clickhouse"):
        path = shutil.which(cand) or (os.path.exists("/usr/sbin/" + cand) and "/usr/sbin/" + cand)
        if path:
            return [path] if cand == "clickhouse-server" else [path, "server"]
    return None


TLS = """
    <https_port>{https}</https_port>
    <openSSL><server>
        <certificateFile>{certs}/server.pem</certificateFile><privateKeyFile>{certs}/server.key</privateKeyFile>
        <caConfig>{certs}/ca.pem</caConfig><verificationMode>strict</verificationMode>
        <loadDefaultCAFile>false</loadDefaultCAFile><cacheSessions>true</cacheSessions>
        <disableProtocols>sslv2,sslv3</disableProtocols><preferServerCiphers>true</preferServerCiphers>
    </server></openSSL>"""


def make_certs(folder):
    """With openssl: a CA (ca.pem), a server certificate for 127.0.0.1 and localhost
    (server.pem, server.key) and a client certificate (client.pem, client.key), all
    signed by the CA, in folder."""
    os.makedirs(folder, exist_ok=True)

    def ossl(*args):
        subprocess.run(["openssl"] + list(args), cwd=folder, check=True, capture_output=True, timeout=60)
    ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
         "-subj", "/CN=sprof test CA")
    with open(os.path.join(folder, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, cn, ext in (("server", "localhost", ["-extfile", "san.ext"]), ("client", "sprof agent", [])):
        ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
             "-subj", "/CN=" + cn)
        ossl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", name + ".pem", "-days", "2", *ext)
    return folder


class Server:
    def __init__(self, folder, certs=None):
        self.dir = folder
        self.http, self.tcp, self.inter = free_port(), free_port(), free_port()
        self.dead = free_port()  # the second shard of test_cluster_dead_shard: nothing listens
        # certs (make_certs' folder): an https port too, which wants a client certificate
        self.https = free_port() if certs else None
        tls = TLS.format(https=self.https, certs=certs) if certs else ""
        self.proc = None
        os.makedirs(folder, exist_ok=True)
        for sub in ("data", "tmp", "user_files", "format_schemas"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        with open(os.path.join(folder, "config.xml"), "w") as f:
            f.write(CONFIG.format(d=folder, http=self.http, tcp=self.tcp, inter=self.inter, dead=self.dead, tls=tls))
        with open(os.path.join(folder, "users.xml"), "w") as f:
            f.write(USERS.format(d=folder))

    def add_cluster(self, name, ports):
        """Before start: a cluster `name` of one shard per TCP port on 127.0.0.1
        (other servers' ports: a cluster of real servers)."""
        shards = "".join("<shard><replica><host>127.0.0.1</host><port>%d</port></replica></shard>" % p
                         for p in ports)
        path = os.path.join(self.dir, "config.xml")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("</remote_servers>", "<%s>%s</%s>\n    </remote_servers>" % (name, shards, name)))

    def start(self, timeout=60):
        cmd = server_binary()
        if not cmd:
            raise RuntimeError("no clickhouse-server binary")
        log = open(os.path.join(self.dir, "stdout.log"), "ab")
        self.proc = subprocess.Popen(cmd + ["--config-file=" + os.path.join(self.dir, "config.xml")],
                                     stdout=log, stderr=log, cwd=self.dir, start_new_session=True)
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("clickhouse-server exited %d: see %s" % (self.proc.returncode, self.dir))
            try:
                if self.query("SELECT 1").strip() == "1":
                    return self
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.2)
        raise RuntimeError("clickhouse-server did not answer within %ds" % timeout)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def query(self, sql, user="default", password="", timeout=30):
        q = urllib.parse.urlencode({"query": sql, "user": user, "password": password})
        with urllib.request.urlopen("http://127.0.0.1:%d/?%s" % (self.http, q), data=b"", timeout=timeout) as r:
            return r.read().decode()

    def url(self, table="sprof.stacks", auth=""):
        return "clickhouse://%s127.0.0.1:%d/%s" % (auth, self.http, table)


if __name__ == "__main__":
    s = Server(os.path.abspath(sys.argv[1])).start()
    print("http port", s.http, "tcp port", s.tcp, flush=True)
    try:
        s.proc.wait()
    except KeyboardInterrupt:
        s.stop()

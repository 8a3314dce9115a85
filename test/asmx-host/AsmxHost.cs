// A small ASP.NET host for the tests: serves a folder of .asmx files (with web.config, App_Code, bin) on
// http://127.0.0.1:<port>/ through Mono's System.Web, so tests can see what a real ASMX runtime answers.
//
//   mono AsmxHost.exe --root <dir> --port <port> [--max-body <bytes>] [--request-timeout <seconds>]
//
// The executable must sit in <dir>/bin (the ASP.NET application domain loads AppHost from there); the
// TypeScript side (host.ts) copies the services into a private folder and puts the compiled host in its bin.
// Lines on stdout, each starting with "ASMX-HOST ", tell the parent what happened:
//   ASMX-HOST LISTENING <url>        ready: every .asmx answered its ?WSDL with 200
//   ASMX-HOST PORT-IN-USE <port>     the listener could not bind (exit code 3; the parent picks another port)
//   ASMX-HOST WARMUP-FAILED <url> <status>   a service's ?WSDL was not 200 (exit code 4; the errors ASP.NET
//                                            recorded, compiler messages included, or its answer on stderr)
// Later errors ASP.NET records for a request (not SOAP faults, which are answers) are printed on stderr too.
// The host exits when its standard input closes, so it never outlives the test process that started it.
//
// Requests go from the HttpListener (default application domain) to the ASP.NET domain as plain serializable
// data; WorkerRequest hands method, path, path info, query, headers and body to ASP.NET and collects the
// status, headers and body it sends back.

using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using System.Web;
using System.Web.Hosting;

namespace AsmxTestHost
{
    [Serializable]
    public sealed class RequestData
    {
        public string Method;
        /// <summary>The request target as sent (percent-encoded path, then ?query).</summary>
        public string RawUrl;
        public string HttpVersion;
        public string[] HeaderNames;
        public string[] HeaderValues;
        public byte[] Body;
        public string RemoteAddress;
        public int RemotePort;
        public string LocalAddress;
        public int LocalPort;
    }

    [Serializable]
    public sealed class ResponseData
    {
        public int Status;
        public string StatusDescription;
        public List<string> HeaderNames = new List<string>();
        public List<string> HeaderValues = new List<string>();
        public byte[] Body;
        /// <summary>Set when ASP.NET did not finish in time; the answer is then the host's own 504.</summary>
        public bool TimedOut;
        /// <summary>The exceptions ASP.NET recorded for the request (compile errors among them), or null.</summary>
        public string Errors;
    }

    /// <summary>Lives in the ASP.NET application domain; one instance serves every request.</summary>
    public sealed class AppHost : MarshalByRefObject
    {
        public override object InitializeLifetimeService()
        {
            return null; // never collected by remoting's lease manager while the host runs
        }

        public ResponseData Process(RequestData request, int timeoutSeconds)
        {
            var worker = new WorkerRequest(request);
            HttpRuntime.ProcessRequest(worker);
            if (!worker.Finished.WaitOne(TimeSpan.FromSeconds(timeoutSeconds)))
            {
                var late = new ResponseData();
                late.Status = 504;
                late.StatusDescription = "Gateway Timeout";
                late.TimedOut = true;
                late.Body = Encoding.UTF8.GetBytes("asmx-host: ASP.NET did not finish the request within " + timeoutSeconds + " s\n");
                late.HeaderNames.Add("Content-Type");
                late.HeaderValues.Add("text/plain; charset=utf-8");
                return late;
            }
            return worker.Response;
        }
    }

    /// <summary>One request as ASP.NET sees it.</summary>
    public sealed class WorkerRequest : SimpleWorkerRequest
    {
        readonly RequestData request;
        readonly string uriPath;   // decoded path, e.g. /Calc.asmx/Add
        readonly string filePath;  // the part naming a file, e.g. /Calc.asmx
        readonly string pathInfo;  // the rest, e.g. /Add
        readonly string query;     // without '?', still encoded
        readonly MemoryStream body = new MemoryStream();
        public readonly ResponseData Response = new ResponseData();
        public readonly ManualResetEvent Finished = new ManualResetEvent(false);
        bool headersDone;

        public WorkerRequest(RequestData request)
            : base(PageOf(request.RawUrl), QueryOf(request.RawUrl), TextWriter.Null)
        {
            this.request = request;
            string raw = request.RawUrl;
            int q = raw.IndexOf('?');
            string encodedPath = q < 0 ? raw : raw.Substring(0, q);
            query = q < 0 ? "" : raw.Substring(q + 1);
            uriPath = Uri.UnescapeDataString(encodedPath);
            if (uriPath.Length == 0 || uriPath[0] != '/') uriPath = "/" + uriPath;
            SplitPath(uriPath, HttpRuntime.AppDomainAppPath, out filePath, out pathInfo);
            Response.Status = 200;
            Response.StatusDescription = "OK";
        }

        static string PageOf(string rawUrl)
        {
            int q = rawUrl.IndexOf('?');
            string p = Uri.UnescapeDataString(q < 0 ? rawUrl : rawUrl.Substring(0, q));
            return p.TrimStart('/');
        }

        static string QueryOf(string rawUrl)
        {
            int q = rawUrl.IndexOf('?');
            return q < 0 ? "" : rawUrl.Substring(q + 1);
        }

        /// <summary>
        /// The longest prefix of the path that names an existing file is the file path, the rest is path info
        /// (/Calc.asmx/Add → /Calc.asmx + /Add). Without such a file the whole path is the file path.
        /// </summary>
        static void SplitPath(string path, string physicalRoot, out string file, out string info)
        {
            string[] segments = path.Split('/');
            string prefix = "";
            for (int i = 1; i < segments.Length; i++)
            {
                prefix += "/" + segments[i];
                if (segments[i].Length == 0 || segments[i] == "." || segments[i] == "..") break;
                string physical = Path.Combine(physicalRoot, prefix.Substring(1));
                if (File.Exists(physical))
                {
                    file = prefix;
                    info = path.Substring(prefix.Length);
                    return;
                }
            }
            file = path;
            info = "";
        }

        string Header(string name)
        {
            string found = null;
            for (int i = 0; i < request.HeaderNames.Length; i++)
            {
                if (string.Equals(request.HeaderNames[i], name, StringComparison.OrdinalIgnoreCase))
                    found = found == null ? request.HeaderValues[i] : found + ", " + request.HeaderValues[i];
            }
            return found;
        }

        public override string GetHttpVerbName() { return request.Method; }
        public override string GetHttpVersion() { return request.HttpVersion; }
        public override string GetUriPath() { return uriPath; }
        public override string GetFilePath() { return filePath; }
        public override string GetPathInfo() { return pathInfo; }
        public override string GetQueryString() { return query; }
        public override byte[] GetQueryStringRawBytes() { return Encoding.ASCII.GetBytes(query); }
        public override string GetRawUrl() { return request.RawUrl; }
        public override string GetFilePathTranslated()
        {
            return Path.Combine(HttpRuntime.AppDomainAppPath, filePath.TrimStart('/'));
        }
        public override string GetRemoteAddress() { return request.RemoteAddress; }
        public override int GetRemotePort() { return request.RemotePort; }
        public override string GetLocalAddress() { return request.LocalAddress; }
        public override int GetLocalPort() { return request.LocalPort; }
        public override string GetServerName()
        {
            string host = Header("Host");
            if (string.IsNullOrEmpty(host)) return request.LocalAddress;
            if (host.StartsWith("[")) { int end = host.IndexOf(']'); return end > 0 ? host.Substring(0, end + 1) : host; }
            int colon = host.IndexOf(':');
            return colon < 0 ? host : host.Substring(0, colon);
        }
        public override string GetProtocol() { return "http"; }
        public override bool IsSecure() { return false; }

        public override string GetServerVariable(string name)
        {
            switch (name)
            {
                case "SERVER_PROTOCOL": return request.HttpVersion;
                case "SERVER_SOFTWARE": return "asmx-host";
                case "HTTPS": return "off";
                case "REQUEST_METHOD": return request.Method;
                case "SERVER_NAME": return GetServerName();
                case "SERVER_PORT": return request.LocalPort.ToString();
                case "REMOTE_ADDR": return request.RemoteAddress;
                default: return "";
            }
        }

        public override string GetKnownRequestHeader(int index)
        {
            return Header(GetKnownRequestHeaderName(index));
        }

        public override string GetUnknownRequestHeader(string name)
        {
            return Header(name);
        }

        public override string[][] GetUnknownRequestHeaders()
        {
            var list = new List<string[]>();
            for (int i = 0; i < request.HeaderNames.Length; i++)
            {
                if (GetKnownRequestHeaderIndex(request.HeaderNames[i]) < 0)
                    list.Add(new[] { request.HeaderNames[i], request.HeaderValues[i] });
            }
            return list.ToArray();
        }

        public override byte[] GetPreloadedEntityBody() { return request.Body; }
        public override int GetPreloadedEntityBodyLength() { return request.Body.Length; }
        public override int GetPreloadedEntityBody(byte[] buffer, int offset)
        {
            Buffer.BlockCopy(request.Body, 0, buffer, offset, request.Body.Length);
            return request.Body.Length;
        }
        public override bool IsEntireEntityBodyIsPreloaded() { return true; }
        public override int GetTotalEntityBodyLength() { return request.Body.Length; }
        public override int ReadEntityBody(byte[] buffer, int size) { return 0; }
        public override int ReadEntityBody(byte[] buffer, int offset, int size) { return 0; }

        public override void SendStatus(int statusCode, string statusDescription)
        {
            Response.Status = statusCode;
            Response.StatusDescription = statusDescription;
        }

        public override void SendKnownResponseHeader(int index, string value)
        {
            AddResponseHeader(GetKnownResponseHeaderName(index), value);
        }

        public override void SendUnknownResponseHeader(string name, string value)
        {
            AddResponseHeader(name, value);
        }

        void AddResponseHeader(string name, string value)
        {
            if (headersDone) return;
            Response.HeaderNames.Add(name);
            Response.HeaderValues.Add(value);
        }

        public override void SendCalculatedContentLength(int contentLength)
        {
            AddResponseHeader("Content-Length", contentLength.ToString());
        }

        public override bool HeadersSent() { return headersDone; }

        public override void SendResponseFromMemory(byte[] data, int length)
        {
            headersDone = true;
            body.Write(data, 0, length);
        }

        public override void SendResponseFromMemory(IntPtr data, int length)
        {
            headersDone = true;
            var copy = new byte[length];
            Marshal.Copy(data, copy, 0, length);
            body.Write(copy, 0, length);
        }

        public override void SendResponseFromFile(string filename, long offset, long length)
        {
            headersDone = true;
            using (var f = File.OpenRead(filename))
            {
                f.Seek(offset, SeekOrigin.Begin);
                var buffer = new byte[65536];
                long left = length < 0 ? f.Length - offset : length;
                while (left > 0)
                {
                    int n = f.Read(buffer, 0, (int)Math.Min(buffer.Length, left));
                    if (n <= 0) break;
                    body.Write(buffer, 0, n);
                    left -= n;
                }
            }
        }

        public override void SendResponseFromFile(IntPtr handle, long offset, long length)
        {
            throw new NotSupportedException("asmx-host: responses from file handles are not supported");
        }

        public override void FlushResponse(bool finalFlush)
        {
            headersDone = true;
        }

        public override void EndOfRequest()
        {
            // The request's context is still current here: keep what went wrong, whatever customErrors hides.
            HttpContext context = HttpContext.Current;
            if (context != null && context.AllErrors != null)
            {
                var text = new StringBuilder();
                foreach (Exception e in context.AllErrors)
                {
                    text.Append(e).Append('\n');
                    var compile = e as HttpCompileException;
                    if (compile != null && compile.Results != null)
                    {
                        foreach (System.CodeDom.Compiler.CompilerError error in compile.Results.Errors)
                            text.Append(error).Append('\n');
                    }
                }
                Response.Errors = text.ToString();
            }
            Response.Body = body.ToArray();
            Finished.Set();
        }

        public override void CloseConnection() { }
        public override bool IsClientConnected() { return true; }
    }

    public static class Program
    {
        static AppHost appHost;
        static readonly object hostLock = new object();
        static string root;
        static long maxBody = 16 * 1024 * 1024;
        static int requestTimeout = 120;

        // Response headers HttpListener sets itself (or refuses to take from the headers collection).
        static readonly HashSet<string> ListenerOwned = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
        {
            "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Content-Type", "Date", "Server",
        };

        public static int Main(string[] args)
        {
            int port = 0;
            for (int i = 0; i + 1 < args.Length; i += 2)
            {
                switch (args[i])
                {
                    case "--root": root = Path.GetFullPath(args[i + 1]); break;
                    case "--port": port = int.Parse(args[i + 1]); break;
                    case "--max-body": maxBody = long.Parse(args[i + 1]); break;
                    case "--request-timeout": requestTimeout = int.Parse(args[i + 1]); break;
                    default: Console.Error.WriteLine("asmx-host: unknown option " + args[i]); return 2;
                }
            }
            if (root == null || port <= 0 || port > 65535)
            {
                Console.Error.WriteLine("usage: mono AsmxHost.exe --root <dir> --port <1-65535> [--max-body <bytes>] [--request-timeout <s>]");
                return 2;
            }
            ThreadPool.SetMinThreads(16, 16);

            var listener = new HttpListener();
            string prefix = "http://127.0.0.1:" + port + "/";
            listener.Prefixes.Add(prefix);
            try
            {
                listener.Start();
            }
            catch (Exception e) when (e is HttpListenerException || e is SocketException)
            {
                Console.WriteLine("ASMX-HOST PORT-IN-USE " + port);
                Console.Error.WriteLine("asmx-host: cannot listen on " + prefix + ": " + e.Message);
                return 3;
            }

            var watcher = new Thread(() =>
            {
                // The parent closes our stdin to stop us (or dies): exit then, listener and all.
                try { while (Console.In.ReadLine() != null) { } } catch (Exception) { }
                Environment.Exit(0);
            });
            watcher.IsBackground = true;
            watcher.Start();

            CreateAppHost();
            foreach (string asmx in Services(root))
            {
                string path = "/" + asmx.Substring(root.Length).TrimStart('/');
                string url = path + "?WSDL";
                ResponseData r = Call(Internal("GET", url, port));
                if (r.Status != 200)
                {
                    Console.WriteLine("ASMX-HOST WARMUP-FAILED " + url + " " + r.Status);
                    Console.Error.WriteLine(r.Errors ?? Encoding.UTF8.GetString(r.Body ?? new byte[0]));
                    return 4;
                }
            }

            Console.WriteLine("ASMX-HOST LISTENING " + prefix);
            while (true)
            {
                HttpListenerContext context;
                try { context = listener.GetContext(); }
                catch (Exception e) { Console.Error.WriteLine("asmx-host: accept failed: " + e.Message); continue; }
                ThreadPool.QueueUserWorkItem(Serve, context);
            }
        }

        static IEnumerable<string> Services(string dir)
        {
            var found = new List<string>();
            var pending = new Stack<string>();
            pending.Push(dir);
            while (pending.Count > 0)
            {
                string d = pending.Pop();
                found.AddRange(Directory.GetFiles(d, "*.asmx"));
                foreach (string sub in Directory.GetDirectories(d))
                {
                    string name = Path.GetFileName(sub);
                    if (name == "bin" || name.StartsWith("App_")) continue;
                    pending.Push(sub);
                }
            }
            found.Sort(StringComparer.Ordinal);
            return found;
        }

        static void CreateAppHost()
        {
            appHost = (AppHost)ApplicationHost.CreateApplicationHost(typeof(AppHost), "/", root);
        }

        static RequestData Internal(string method, string rawUrl, int port)
        {
            var r = new RequestData();
            r.Method = method;
            r.RawUrl = rawUrl;
            r.HttpVersion = "HTTP/1.1";
            r.HeaderNames = new[] { "Host" };
            r.HeaderValues = new[] { "127.0.0.1:" + port };
            r.Body = new byte[0];
            r.RemoteAddress = "127.0.0.1";
            r.LocalAddress = "127.0.0.1";
            r.LocalPort = port;
            return r;
        }

        /// <summary>Calls the ASP.NET domain, making a new one if ASP.NET unloaded the old (it does on restarts).</summary>
        static ResponseData Call(RequestData request)
        {
            AppHost host = appHost;
            try
            {
                return host.Process(request, requestTimeout);
            }
            catch (AppDomainUnloadedException)
            {
                lock (hostLock)
                {
                    if (appHost == host) CreateAppHost();
                }
                return appHost.Process(request, requestTimeout);
            }
        }

        static void Serve(object state)
        {
            var context = (HttpListenerContext)state;
            HttpListenerResponse response = context.Response;
            try
            {
                HttpListenerRequest req = context.Request;
                var data = new RequestData();
                data.Method = req.HttpMethod;
                data.RawUrl = req.RawUrl;
                data.HttpVersion = "HTTP/" + req.ProtocolVersion.Major + "." + req.ProtocolVersion.Minor;
                data.RemoteAddress = req.RemoteEndPoint.Address.ToString();
                data.RemotePort = req.RemoteEndPoint.Port;
                data.LocalAddress = req.LocalEndPoint.Address.ToString();
                data.LocalPort = req.LocalEndPoint.Port;
                data.Body = ReadBody(req.InputStream);
                if (data.Body == null)
                {
                    Plain(response, 413, "asmx-host: request body over " + maxBody + " bytes\n");
                    return;
                }
                // HttpListener has taken the chunks apart; ASP.NET gets the body whole, so it is told its length
                // as IIS would after reading a chunked body (Mono's ASP.NET reads no body without one).
                bool chunked = req.Headers["Transfer-Encoding"] != null;
                var names = new List<string>();
                var values = new List<string>();
                foreach (string name in req.Headers.AllKeys)
                {
                    if (chunked && (string.Equals(name, "Transfer-Encoding", StringComparison.OrdinalIgnoreCase)
                                    || string.Equals(name, "Content-Length", StringComparison.OrdinalIgnoreCase))) continue;
                    foreach (string value in req.Headers.GetValues(name) ?? new string[0])
                    {
                        names.Add(name);
                        values.Add(value);
                    }
                }
                if (chunked)
                {
                    names.Add("Content-Length");
                    values.Add(data.Body.Length.ToString());
                }
                data.HeaderNames = names.ToArray();
                data.HeaderValues = values.ToArray();

                ResponseData answer = Call(data);
                if (answer.Errors != null)
                    Console.Error.WriteLine("asmx-host: " + data.Method + " " + data.RawUrl + " → " + answer.Status + ", ASP.NET recorded:\n" + answer.Errors);
                response.StatusCode = answer.Status;
                if (!string.IsNullOrEmpty(answer.StatusDescription)) response.StatusDescription = answer.StatusDescription;
                for (int i = 0; i < answer.HeaderNames.Count; i++)
                {
                    string name = answer.HeaderNames[i], value = answer.HeaderValues[i];
                    if (string.Equals(name, "Content-Type", StringComparison.OrdinalIgnoreCase)) response.ContentType = value;
                    else if (!ListenerOwned.Contains(name)) response.AddHeader(name, value);
                }
                byte[] bytes = answer.Body ?? new byte[0];
                response.ContentLength64 = bytes.Length;
                response.OutputStream.Write(bytes, 0, bytes.Length);
                response.Close();
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("asmx-host: request failed: " + e);
                try { Plain(response, 500, "asmx-host: " + e.GetType().Name + ": " + e.Message + "\n"); } catch (Exception) { }
            }
        }

        /// <summary>The whole body, or null when it is longer than --max-body.</summary>
        static byte[] ReadBody(Stream input)
        {
            var buffer = new MemoryStream();
            var chunk = new byte[65536];
            int n;
            while ((n = input.Read(chunk, 0, chunk.Length)) > 0)
            {
                if (buffer.Length + n > maxBody) return null;
                buffer.Write(chunk, 0, n);
            }
            return buffer.ToArray();
        }

        static void Plain(HttpListenerResponse response, int status, string text)
        {
            byte[] bytes = Encoding.UTF8.GetBytes(text);
            response.StatusCode = status;
            response.ContentType = "text/plain; charset=utf-8";
            response.ContentLength64 = bytes.Length;
            response.OutputStream.Write(bytes, 0, bytes.Length);
            response.Close();
        }
    }
}

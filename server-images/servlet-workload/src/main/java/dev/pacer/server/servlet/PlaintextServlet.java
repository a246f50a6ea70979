package dev.pacer.server.servlet;

import java.io.IOException;

import dev.pacer.agent.Workload;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The servlet every servlet mode serves, mapped to {@code /*}: {@code GET /} and {@code GET /plaintext} perform the
 * {@link Workload} of the query and answer its body; a POST reads its body first. One class, so that Jetty 11, Jetty 12
 * ee9 and ee10 differ only by their container.
 */
public final class PlaintextServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!Workload.isServedServletPath(request.getServletPath(), request.getPathInfo())) {
            response.sendError(404);
            return;
        }
        Workload workload = Workload.parse(request.getQueryString());
        workload.perform();
        String servletPath = request.getServletPath() == null ? "" : request.getServletPath();
        String path = servletPath + (request.getPathInfo() == null ? "" : request.getPathInfo());
        byte[] body = workload.body(path.isEmpty() ? "/" : path);
        response.setContentType("text/plain");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        request.getInputStream().readAllBytes();
        doGet(request, response);
    }
}

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ragportal.login_throttle import ThrottledAdminAuthenticationForm, ThrottledAuthenticationForm

# The schema needs a signed-in user (SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]): an
# anonymous API client gets 401, and a browser on the docs page the login page.
# The split view serves the Swagger UI's start-up script as a file, not inline (CSP). It is a
# page, not an API: OPTIONS would render DRF's metadata through the page's template (a 500),
# so only GET and HEAD are allowed and anything else is a 405 (templates/405.html).
swagger_ui = login_required(
    SpectacularSwaggerSplitView.as_view(
        url_name="schema", template_name="api/swagger_ui.html", http_method_names=["get", "head"]
    )
)

# Both login forms say so when django-axes refused the attempt (ragportal/login_throttle.py).
admin.site.login_form = ThrottledAdminAuthenticationForm

urlpatterns = [
    path("", include("qa.urls")),
    path("documents/", include("documents.urls")),
    path("api/v1/", include("qa.api_urls")),
    path("api/v1/documents/", include("documents.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", swagger_ui, name="swagger-ui"),
    path(
        "accounts/login/", auth_views.LoginView.as_view(authentication_form=ThrottledAuthenticationForm), name="login"
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]

# An exception raised outside a view (a middleware saving the session) that is a database outage is a 503 too.
handler500 = "ragportal.database_unavailable.server_error"

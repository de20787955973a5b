/* The renderer's GLSL 3.30 programs and their compilation.
 *
 * Lighting is Blinn-Phong per fragment with MJCF's light model: each light
 * adds ambient * rgb + diffuse * rgb * max(n.l, 0) + specular * material
 * specular * max(n.h, 0)^(128 shininess), spot lights cut off at `cutoff`
 * degrees with cos^exponent falloff, attenuated by 1 / (a0 + a1 d + a2 d^2).
 * Shadows: a depth map from the main light (Williams 1978), compared with
 * hardware percentage-closer filtering (sampler2DShadow). */
#include <stdio.h>
#include <string.h>

#include "gl_internal.h"

static const char* main_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec3 a_nrm;\n"
    "layout(location = 2) in vec2 a_uv;\n"
    "uniform mat4 u_model, u_view, u_proj, u_light_vp;\n"
    "uniform mat3 u_nmat;\n"
    "uniform vec3 u_scale;\n"
    "out vec3 v_world, v_nrm, v_local;\n"
    "out vec2 v_uv;\n"
    "out vec4 v_light;\n"
    "void main() {\n"
    "  vec4 w = u_model * vec4(a_pos, 1.0);\n"
    "  v_world = w.xyz; v_nrm = u_nmat * a_nrm; v_local = a_pos * u_scale; v_uv = a_uv;\n"
    "  v_light = u_light_vp * w;\n"
    "  gl_Position = u_proj * u_view * w;\n"
    "}\n";

static const char* main_fs =
    "#version 330 core\n"
    "#define NL 8\n"
    "in vec3 v_world, v_nrm, v_local;\n"
    "in vec2 v_uv;\n"
    "in vec4 v_light;\n"
    "uniform vec4 u_rgba;\n"
    "uniform float u_specular, u_shininess, u_emission;\n"
    "uniform int u_use_tex, u_texuniform;\n"
    "uniform sampler2D u_tex;\n"
    "uniform samplerCube u_cube;\n"
    "uniform vec2 u_texrepeat;\n"
    "uniform vec3 u_eye;\n"
    "uniform int u_nlight;\n"
    "uniform vec3 u_lpos[NL], u_ldir[NL], u_lamb[NL], u_ldif[NL], u_lspec[NL], u_latt[NL];\n"
    "uniform int u_ldirectional[NL];\n"
    "uniform float u_lcutoff[NL], u_lexp[NL];\n"
    "uniform sampler2DShadow u_shadow;\n"
    "uniform int u_shadow_light, u_use_shadow;\n"
    "out vec4 o_color;\n"
    /* 1 lit, 0 in shadow, filtered over 3x3 texels */
    "float lit_fraction() {\n"
    "  vec3 p = v_light.xyz / v_light.w * 0.5 + 0.5;\n"
    "  if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;\n"
    "  vec2 t = 1.0 / vec2(textureSize(u_shadow, 0));\n"
    "  float s = 0.0;\n"
    "  for (int i = -1; i <= 1; i++) for (int j = -1; j <= 1; j++)\n"
    "    s += texture(u_shadow, vec3(p.xy + vec2(i, j) * t, p.z));\n"
    "  return s / 9.0;\n"
    "}\n"
    "void main() {\n"
    "  vec3 n = normalize(v_nrm), e = normalize(u_eye - v_world);\n"
    "  if (dot(n, e) < 0.0) n = -n;\n" /* two-sided: a plane seen from below */
    "  vec3 base = u_rgba.rgb;\n"
    /* cube textures by the direction from the object's centre, z up (the
       up face on top, as in the world), where GL's cube maps are y up */
    "  if (u_use_tex == 2) base *= texture(u_cube, vec3(v_local.x, v_local.z, -v_local.y)).rgb;\n"
    "  if (u_use_tex == 1) {\n"
    "    vec2 uv = u_texuniform != 0 ? v_local.xy * u_texrepeat : v_uv * u_texrepeat;\n"
    "    base *= texture(u_tex, uv).rgb;\n"
    "  }\n"
    "  vec3 c = u_emission * base;\n"
    "  for (int k = 0; k < u_nlight; k++) {\n"
    "    vec3 l; float att = 1.0;\n"
    "    if (u_ldirectional[k] != 0) l = -normalize(u_ldir[k]);\n"
    "    else {\n"
    "      vec3 d = u_lpos[k] - v_world; float r = length(d); l = d / r;\n"
    "      att = 1.0 / max(u_latt[k].x + u_latt[k].y * r + u_latt[k].z * r * r, 1e-6);\n"
    "      float cs = dot(-l, normalize(u_ldir[k]));\n"
    "      if (cs < cos(radians(u_lcutoff[k]))) att = 0.0; else att *= pow(cs, u_lexp[k]);\n"
    "    }\n"
    "    float vis = (u_use_shadow != 0 && k == u_shadow_light) ? lit_fraction() : 1.0;\n"
    "    float nl = max(dot(n, l), 0.0);\n"
    "    float nh = max(dot(n, normalize(l + e)), 0.0);\n"
    "    float sp = nl > 0.0 ? pow(nh, max(128.0 * u_shininess, 1.0)) : 0.0;\n"
    "    c += u_lamb[k] * base\n"
    "       + att * vis * (u_ldif[k] * base * nl + u_lspec[k] * u_specular * sp);\n"
    "  }\n"
    "  o_color = vec4(c, u_rgba.a);\n"
    "}\n";

static const char* depth_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "uniform mat4 u_model, u_light_vp;\n"
    "void main() { gl_Position = u_light_vp * u_model * vec4(a_pos, 1.0); }\n";

static const char* depth_fs =
    "#version 330 core\n"
    "void main() {}\n";

/* Unlit, one colour: overlay items and the picking pass (ids as colours). */
static const char* flat_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "uniform mat4 u_model, u_view, u_proj;\n"
    "void main() { gl_Position = u_proj * u_view * u_model * vec4(a_pos, 1.0); }\n";

static const char* flat_fs =
    "#version 330 core\n"
    "uniform vec4 u_rgba;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_rgba; }\n";

/* Background: the ray through each pixel, coloured by its height z as a
   gradient from u_bottom (z = -1) to u_top (z = 1), or looked up in the
   model's skybox cube map (z up, as for cube-textured geoms). */
static const char* sky_vs =
    "#version 330 core\n"
    "out vec2 v_ndc;\n"
    "void main() {\n"
    "  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n"
    "  v_ndc = p; gl_Position = vec4(p, 1.0, 1.0);\n"
    "}\n";

static const char* sky_fs =
    "#version 330 core\n"
    "in vec2 v_ndc;\n"
    "uniform vec3 u_fwd, u_right, u_up, u_top, u_bottom;\n"
    "uniform vec2 u_tan;\n"
    "uniform int u_use_cube;\n"
    "uniform samplerCube u_sky;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec3 d = normalize(u_fwd + v_ndc.x * u_tan.x * u_right + v_ndc.y * u_tan.y * u_up);\n"
    "  o_color = u_use_cube != 0 ? vec4(texture(u_sky, vec3(d.x, d.z, -d.y)).rgb, 1.0)\n"
    "                            : vec4(mix(u_bottom, u_top, 0.5 * (d.z + 1.0)), 1.0);\n"
    "}\n";

/* Text and panels in pixel coordinates (y down); u_solid: a plain panel. */
static const char* text_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "layout(location = 1) in vec2 a_uv;\n"
    "uniform vec2 u_size;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "  v_uv = a_uv;\n"
    "  vec2 ndc = vec2(2.0 * a_pos.x / u_size.x - 1.0, 1.0 - 2.0 * a_pos.y / u_size.y);\n"
    "  gl_Position = vec4(ndc, 0.0, 1.0);\n"
    "}\n";

static const char* text_fs =
    "#version 330 core\n"
    "in vec2 v_uv;\n"
    "uniform sampler2D u_font;\n"
    "uniform vec4 u_rgba;\n"
    "uniform int u_solid;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  float a = u_solid != 0 ? 1.0 : texture(u_font, v_uv).r;\n"
    "  o_color = vec4(u_rgba.rgb, u_rgba.a * a);\n"
    "}\n";

static GLuint compile(GLenum type, const char* src, const char* name, char* err, int errsz) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    snprintf(err, (size_t)errsz, "renderer: shader %s does not compile: %s", name, log);
    glDeleteShader(s);
    return 0;
  }
  return s;
}

static GLuint program(const char* vs, const char* fs, const char* name, char* err, int errsz) {
  GLuint v = compile(GL_VERTEX_SHADER, vs, name, err, errsz);
  GLuint f = v ? compile(GL_FRAGMENT_SHADER, fs, name, err, errsz) : 0;
  if (!f) {
    if (v) glDeleteShader(v);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    snprintf(err, (size_t)errsz, "renderer: program %s does not link: %s", name, log);
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

static void main_uniforms(GLuint p, imp_main_uniforms* u) {
  u->model = glGetUniformLocation(p, "u_model");
  u->nmat = glGetUniformLocation(p, "u_nmat");
  u->scale = glGetUniformLocation(p, "u_scale");
  u->view = glGetUniformLocation(p, "u_view");
  u->proj = glGetUniformLocation(p, "u_proj");
  u->light_vp = glGetUniformLocation(p, "u_light_vp");
  u->eye = glGetUniformLocation(p, "u_eye");
  u->rgba = glGetUniformLocation(p, "u_rgba");
  u->specular = glGetUniformLocation(p, "u_specular");
  u->shininess = glGetUniformLocation(p, "u_shininess");
  u->emission = glGetUniformLocation(p, "u_emission");
  u->use_tex = glGetUniformLocation(p, "u_use_tex");
  u->tex = glGetUniformLocation(p, "u_tex");
  u->cube = glGetUniformLocation(p, "u_cube");
  u->texrepeat = glGetUniformLocation(p, "u_texrepeat");
  u->texuniform = glGetUniformLocation(p, "u_texuniform");
  u->nlight = glGetUniformLocation(p, "u_nlight");
  u->lpos = glGetUniformLocation(p, "u_lpos");
  u->ldir = glGetUniformLocation(p, "u_ldir");
  u->lamb = glGetUniformLocation(p, "u_lamb");
  u->ldif = glGetUniformLocation(p, "u_ldif");
  u->lspec = glGetUniformLocation(p, "u_lspec");
  u->latt = glGetUniformLocation(p, "u_latt");
  u->ldirectional = glGetUniformLocation(p, "u_ldirectional");
  u->lcutoff = glGetUniformLocation(p, "u_lcutoff");
  u->lexp = glGetUniformLocation(p, "u_lexp");
  u->shadow = glGetUniformLocation(p, "u_shadow");
  u->shadow_light = glGetUniformLocation(p, "u_shadow_light");
  u->use_shadow = glGetUniformLocation(p, "u_use_shadow");
}

int imp_gl_build_programs(imp_renderer* r, char* err, int errsz) {
  r->prog_main = program(main_vs, main_fs, "main", err, errsz);
  if (!r->prog_main) return 0;
  main_uniforms(r->prog_main, &r->u);
  r->prog_depth = program(depth_vs, depth_fs, "depth", err, errsz);
  r->prog_flat = r->prog_depth ? program(flat_vs, flat_fs, "flat", err, errsz) : 0;
  r->prog_sky = r->prog_flat ? program(sky_vs, sky_fs, "sky", err, errsz) : 0;
  r->prog_text = r->prog_sky ? program(text_vs, text_fs, "text", err, errsz) : 0;
  return r->prog_text != 0;
}

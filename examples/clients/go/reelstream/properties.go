// Package reelstream is a small game client for the reelstream platform: one spin request out, one answer back.
package reelstream

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Properties are a role's Kafka client settings, as in the Java client's .properties files.
type Properties map[string]string

// LoadProperties reads a .properties file (key=value or key: value, # and ! comments, \ line continuations).
func LoadProperties(path string) (Properties, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseProperties(f)
}

// ParseProperties parses the .properties format; only the escapes a client's settings use are handled.
func ParseProperties(r io.Reader) (Properties, error) {
	props := Properties{}
	scanner := bufio.NewScanner(r)
	logical := ""
	for scanner.Scan() {
		line := strings.TrimLeft(scanner.Text(), " \t\f")
		if logical == "" && (line == "" || line[0] == '#' || line[0] == '!') {
			continue
		}
		if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) {
			logical += strings.TrimSuffix(line, `\`)
			continue
		}
		logical += line
		key, value := splitProperty(logical)
		props[key] = value
		logical = ""
	}
	if logical != "" {
		key, value := splitProperty(logical)
		props[key] = value
	}
	return props, scanner.Err()
}

func splitProperty(line string) (string, string) {
	cut := strings.IndexAny(line, "=: \t")
	if cut < 0 {
		return unescape(line), ""
	}
	key := line[:cut]
	rest := strings.TrimLeft(line[cut:], " \t")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	return unescape(key), unescape(rest)
}

// unescape drops the backslash before any character, as java.util.Properties does (\t and \n are control characters).
func unescape(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			out.WriteByte('\t')
		case 'n':
			out.WriteByte('\n')
		default:
			out.WriteByte(s[i])
		}
	}
	return out.String()
}

var jaasField = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// JAASCredentials reads username and password out of a sasl.jaas.config value.
func JAASCredentials(jaas string) (user, password string, err error) {
	for _, m := range jaasField.FindAllStringSubmatch(jaas, -1) {
		switch m[1] {
		case "username":
			user = strings.ReplaceAll(m[2], `\"`, `"`)
		case "password":
			password = strings.ReplaceAll(m[2], `\"`, `"`)
		}
	}
	if user == "" {
		return "", "", fmt.Errorf("sasl.jaas.config has no username=\"...\"")
	}
	return user, password, nil
}

// Options turns the properties into franz-go options: brokers, TLS (a PEM truststore) and SASL when configured.
func (p Properties) Options() ([]kgo.Opt, error) {
	servers := p["bootstrap.servers"]
	if servers == "" {
		return nil, fmt.Errorf("bootstrap.servers is missing")
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(servers, ",")...)}
	protocol := strings.ToUpper(p["security.protocol"])
	if protocol == "" {
		protocol = "PLAINTEXT"
	}
	switch protocol {
	case "PLAINTEXT", "SASL_PLAINTEXT":
	case "SSL", "SASL_SSL":
		config, err := p.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(config))
	default:
		return nil, fmt.Errorf("security.protocol %q is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", protocol)
	}
	if strings.HasPrefix(protocol, "SASL_") {
		mechanism, err := p.saslMechanism()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(mechanism))
	}
	return opts, nil
}

func (p Properties) tlsConfig() (*tls.Config, error) {
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	location := p["ssl.truststore.location"]
	if location == "" {
		return config, nil // the system's roots
	}
	if kind := strings.ToUpper(p["ssl.truststore.type"]); kind != "" && kind != "PEM" {
		return nil, fmt.Errorf("ssl.truststore.type %s: only PEM truststores are read", kind)
	}
	pem, err := os.ReadFile(location)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("ssl.truststore.location %s holds no PEM certificate", location)
	}
	config.RootCAs = pool
	if algorithm, set := p["ssl.endpoint.identification.algorithm"]; set && algorithm == "" {
		// As in the Java client, an empty value checks the chain against the truststore but not the host name.
		config.InsecureSkipVerify = true
		config.VerifyConnection = func(state tls.ConnectionState) error { return verifyChain(state, pool) }
	}
	return config, nil
}

func verifyChain(state tls.ConnectionState, roots *x509.CertPool) error {
	if len(state.PeerCertificates) == 0 {
		return fmt.Errorf("the broker sent no certificate")
	}
	intermediates := x509.NewCertPool()
	for _, cert := range state.PeerCertificates[1:] {
		intermediates.AddCert(cert)
	}
	_, err := state.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates})
	return err
}

func (p Properties) saslMechanism() (sasl.Mechanism, error) {
	user, password, err := JAASCredentials(p["sasl.jaas.config"])
	if err != nil {
		return nil, err
	}
	switch mechanism := strings.ToUpper(p["sasl.mechanism"]); mechanism {
	case "", "PLAIN":
		return plain.Auth{User: user, Pass: password}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: password}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: password}.AsSha512Mechanism(), nil
	default:
		return nil, fmt.Errorf("sasl.mechanism %s is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512", mechanism)
	}
}
